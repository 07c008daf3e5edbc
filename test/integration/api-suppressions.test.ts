import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, simpleEmail } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";
import { runCliJson } from "./cli-support";

/** GET, POST and DELETE /api/v1/suppressions (docs/contract.md §17.1). */
describe("suppressions API", { timeout: 180_000 }, () => {
  let app: TestApp;
  let apiKey: string;
  let accountId: string;
  let otherKey: string;
  beforeAll(async () => {
    app = await startTestApp();
    ({ apiKey, accountId } = await createTestAccount(app.ctx, { name: "Shop" }));
    ({ apiKey: otherKey } = await createTestAccount(app.ctx, { name: "Other" }));
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  const post = (body: unknown, key = apiKey) =>
    app.fetch("/api/v1/suppressions", { method: "POST", headers: bearer(key), body: typeof body === "string" ? body : JSON.stringify(body) });
  const list = async (query = "", key = apiKey) => {
    const res = await app.fetch(`/api/v1/suppressions${query}`, { headers: bearer(key) });
    return { status: res.status, body: (await res.json()) as { TotalRecords: number; Suppressions: { Email: string; Reason: string; Detail: string; MessageID: string | null; CreatedAt: number }[] } };
  };
  const del = (email: string, key = apiKey) => app.fetch(`/api/v1/suppressions/${encodeURIComponent(email)}`, { method: "DELETE", headers: bearer(key) });

  it("adds an address (lowercased, once), and sending to it is then refused with code 14", async () => {
    const res = await post({ Email: " Ann@Example.org ", Reason: "complaint", Detail: "asked by phone" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ Email: "ann@example.org", Added: true });
    const again = await post({ Email: "ann@example.org" });
    expect(await again.json()).toEqual({ Email: "ann@example.org", Added: false });

    const { body } = await list("?Email=ANN@example.org");
    expect(body.TotalRecords).toBe(1);
    expect(body.Suppressions[0]).toMatchObject({ Email: "ann@example.org", Reason: "complaint", Detail: "asked by phone", MessageID: null });
    expect(Math.abs(body.Suppressions[0]!.CreatedAt - Date.now() / 1000)).toBeLessThan(60);

    const send = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(apiKey), body: JSON.stringify(simpleEmail("ann@example.org")) });
    expect(send.status).toBe(422);
    expect(await send.json()).toEqual({ Errors: [{ Code: 14, Message: "Recipient email is suppressed" }] });
  });

  it("refuses bad input with the 422 envelope naming the field", async () => {
    const cases: [unknown, string | undefined][] = [
      [{ Email: "not-an-address" }, "Email"],
      [{ Email: "a@b" }, "Email"],
      [{ Email: `${"a".repeat(2000)}@example.org` }, "Email"],
      [{ Email: 42 }, "Email"],
      [{}, "Email"],
      [{ Email: "x@example.org", Reason: "spam" }, "Reason"],
      [{ Email: "x@example.org", Detail: "d".repeat(1001) }, "Detail"],
      ["{not json", undefined],
      [[1, 2], undefined],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(422);
      expect(await res.json()).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", ...(field && { Field: field }) }] });
    }
    for (const [query, field] of [
      ["?RetrieveCount=0", "RetrieveCount"],
      ["?RetrieveCount=101", "RetrieveCount"],
      ["?StartFrom=-1", "StartFrom"],
      ["?Reason=spam", "Reason"],
      [`?Email=${"a".repeat(1000)}`, "Email"],
    ] as const) {
      const { status, body } = await list(query);
      expect(status, query).toBe(422);
      expect(body).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", Field: field }] });
    }
    const long = await del(`${"a".repeat(1000)}@example.org`);
    expect(long.status).toBe(422);
  });

  it("pages newest first with TotalRecords, and filters by Reason", async () => {
    for (let i = 0; i < 6; i++) expect((await post({ Email: `page${i}@example.net`, Reason: i % 2 ? "hard-bounce" : "manual" })).status).toBe(200);
    const all = await list("?RetrieveCount=100");
    expect(all.body.TotalRecords).toBe(7);
    expect(all.body.Suppressions.slice(0, 6).map((s) => s.Email)).toEqual([5, 4, 3, 2, 1, 0].map((i) => `page${i}@example.net`));
    expect((await list()).body.Suppressions).toHaveLength(5); // RetrieveCount defaults to 5, as on GET /events

    const page = await list("?StartFrom=2&RetrieveCount=2");
    expect(page.body.TotalRecords).toBe(7);
    expect(page.body.Suppressions.map((s) => s.Email)).toEqual(["page3@example.net", "page2@example.net"]);

    const bounces = await list("?Reason=hard-bounce&RetrieveCount=100");
    expect(bounces.body.TotalRecords).toBe(3);
    expect(bounces.body.Suppressions.map((s) => s.Email)).toEqual(["page5@example.net", "page3@example.net", "page1@example.net"]);
    expect((await list("?Reason=complaint&Email=page1@example.net")).body).toEqual({ TotalRecords: 0, Suppressions: [] });
  });

  it("keeps each account's list to itself", async () => {
    expect((await list("", otherKey)).body).toEqual({ TotalRecords: 0, Suppressions: [] });
    const foreign = await del("ann@example.org", otherKey);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({ Errors: [{ Code: 404, Message: "Resource not found" }] });
    expect((await post({ Email: "ann@example.org" }, otherKey)).status).toBe(200);
    expect((await list("?Email=ann@example.org")).body.Suppressions[0]!.Reason).toBe("complaint");
    expect((await del("ann@example.org", otherKey)).status).toBe(200);
    expect((await list("?Email=ann@example.org")).body.TotalRecords).toBe(1);
  });

  it("shares its rows with the CLI, both ways", async () => {
    const env = { DATABASE_URL: app.ctx.config.databaseUrl! };
    const fromCli = await runCliJson<{ email: string; reason: string }[]>(["suppressions", "list", "--account", accountId, "--search", "page1@"], env);
    expect(fromCli).toMatchObject([{ email: "page1@example.net", reason: "hard-bounce" }]);
    await runCliJson(["suppressions", "add", "--account", accountId, "cli+tag@example.org", "--reason", "unsubscribe"], env);
    expect((await list("?Email=CLI%2Btag@example.org")).body.Suppressions).toMatchObject([{ Email: "cli+tag@example.org", Reason: "unsubscribe" }]);

    // DELETE takes the address URL-encoded ('+' and '@' included), once.
    const res = await del("cli+tag@example.org");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    expect((await del("cli+tag@example.org")).status).toBe(404);
    const after = await runCliJson<{ email: string }[]>(["suppressions", "list", "--account", accountId, "--search", "cli"], env);
    expect(after).toEqual([]);
  });
});
