import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorEnvelopeSchema } from "../../lib/contract/errors";
import { listTemplatesResponseSchema, templateDetailSchema, templateSavedResponseSchema, templateVersionSchema } from "../../lib/contract/templates";
import type { CreatedAccount } from "../../lib/domain/accounts/accounts";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Templates with versions (docs/contract.md §14) through the real API and
 * PostgreSQL: versions, the test render, archiving, another account's
 * template, and POST /email with TemplateID (latest, pinned, code 15).
 */
describe("templates API and sending with a template", () => {
  let app: TestApp;
  let account: CreatedAccount;
  let other: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp();
    account = await createTestAccount(app.ctx, { name: "Templates" });
    other = await createTestAccount(app.ctx, { name: "Someone else" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await app.fetch(`/api/v1${path}`, { method, headers: bearer(key), ...(body !== undefined && { body: JSON.stringify(body) }) });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const errorsOf = (json: unknown) => errorEnvelopeSchema.parse(json).Errors.map((e) => ({ Code: e.Code, Field: e.Field }));

  const receipt = {
    Name: "Receipt",
    Subject: "Receipt {{order}} for {{name}}",
    HTMLContent: "<p>Hello {{name}}</p><ul>{{#items}}<li>{{.}}</li>{{/items}}</ul>{{^items}}<p>Nothing</p>{{/items}}<footer>{{{footer}}}</footer>",
    PlainContent: "Hello {{name}}",
  };
  const send = (key: string, extra: Record<string, unknown>) =>
    call(key, "POST", "/email", { From: { name: "Shop", email: "shop@example.com" }, To: [{ name: "Ann", email: "ann@example.org" }], ...extra });

  async function create(key: string, body: Record<string, unknown> = receipt): Promise<number> {
    const res = await call(key, "POST", "/templates", body);
    expect(res.status).toBe(200);
    const saved = templateSavedResponseSchema.parse(res.json);
    expect(saved.Version).toBe(1);
    return saved.TemplateID;
  }

  it("creates, versions, lists, reads and archives a template; versions are never changed", async () => {
    const id = await create(account.apiKey);
    const v2 = await call(account.apiKey, "PUT", `/templates/${id}`, { ...receipt, Name: "Receipt v2", Subject: "Your receipt {{order}}" });
    expect(v2).toEqual({ status: 200, json: { TemplateID: id, Version: 2 } });

    const detail = await call(account.apiKey, "GET", `/templates/${id}`);
    expect(detail.status).toBe(200);
    const d = templateDetailSchema.parse(detail.json);
    expect(d).toMatchObject({ TemplateID: id, Name: "Receipt v2", Version: 2, Subject: "Your receipt {{order}}", HTMLContent: receipt.HTMLContent, PlainContent: receipt.PlainContent });
    expect(d.Versions.map((v) => [v.Version, v.Subject])).toEqual([
      [2, "Your receipt {{order}}"],
      [1, receipt.Subject],
    ]);

    const v1 = await call(account.apiKey, "GET", `/templates/${id}/versions/1`);
    expect(templateVersionSchema.parse(v1.json)).toMatchObject({ TemplateID: id, Version: 1, Subject: receipt.Subject });
    expect((await call(account.apiKey, "GET", `/templates/${id}/versions/3`)).status).toBe(404);

    const list = listTemplatesResponseSchema.parse((await call(account.apiKey, "GET", "/templates")).json);
    expect(list.Templates.find((t) => t.TemplateID === id)).toMatchObject({ Name: "Receipt v2", Version: 2, Subject: "Your receipt {{order}}" });

    expect(await call(account.apiKey, "DELETE", `/templates/${id}`)).toEqual({ status: 200, json: {} });
    expect((await call(account.apiKey, "GET", `/templates/${id}`)).status).toBe(404);
    expect((await call(account.apiKey, "GET", `/templates/${id}/versions/1`)).status).toBe(404);
    expect((await call(account.apiKey, "PUT", `/templates/${id}`, receipt)).status).toBe(404);
    expect((await call(account.apiKey, "DELETE", `/templates/${id}`)).status).toBe(404);
    const after = listTemplatesResponseSchema.parse((await call(account.apiKey, "GET", "/templates")).json);
    expect(after.Templates.some((t) => t.TemplateID === id)).toBe(false);
  });

  it("concurrent PUTs get consecutive versions", async () => {
    const id = await create(account.apiKey);
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => call(account.apiKey, "PUT", `/templates/${id}`, { ...receipt, Subject: `S${i}` })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((a) => a.json.Version as number).sort()).toEqual([2, 3, 4, 5, 6]);
  });

  it("refuses what POST /email would refuse, with its codes, and templates that do not parse or are too large", async () => {
    expect(errorsOf((await call(account.apiKey, "POST", "/templates", { Name: "x", Subject: "s" })).json)).toEqual([{ Code: 10, Field: "HTMLContent" }]);
    const noSubject = await call(account.apiKey, "POST", "/templates", { Name: "x", HTMLContent: "<p>x</p>" });
    expect(noSubject.status).toBe(400);
    expect(errorsOf(noSubject.json)).toEqual([{ Code: 8, Field: "Subject" }]);
    expect(errorsOf((await call(account.apiKey, "POST", "/templates", { Subject: "s", PlainContent: "x" })).json)).toEqual([{ Code: 422, Field: "Name" }]);
    const unclosed = await call(account.apiKey, "POST", "/templates", { Name: "x", Subject: "s", HTMLContent: "<p>{{#items}}</p>" });
    expect(unclosed.status).toBe(422);
    expect(errorsOf(unclosed.json)).toEqual([{ Code: 422, Field: "HTMLContent" }]);
    const large = await call(account.apiKey, "POST", "/templates", { Name: "x", Subject: "s", PlainContent: "x".repeat(1024 * 1024 + 1) });
    expect(errorsOf(large.json)).toEqual([{ Code: 422, Field: "PlainContent" }]);
    expect((await call(account.apiKey, "GET", "/templates/abc")).status).toBe(422);
  });

  it("renders a test render: HTML-escaped in HTML only, sections, inverted sections, raw, missing variables empty", async () => {
    const id = await create(account.apiKey);
    const model = { name: "<script>alert(1)</script>", order: 7, items: ["<tea>", "cake"], footer: "<b>Shop</b>" };
    const res = await call(account.apiKey, "POST", `/templates/${id}/render`, { TemplateModel: model });
    expect(res).toEqual({
      status: 200,
      json: {
        Subject: "Receipt 7 for <script>alert(1)</script>",
        HTMLContent: "<p>Hello &lt;script&gt;alert(1)&lt;&#x2F;script&gt;</p><ul><li>&lt;tea&gt;</li><li>cake</li></ul><footer><b>Shop</b></footer>",
        PlainContent: "Hello <script>alert(1)</script>",
      },
    });
    const empty = await call(account.apiKey, "POST", `/templates/${id}/render`, {});
    expect(empty.json).toEqual({ Subject: "Receipt  for ", HTMLContent: "<p>Hello </p><ul></ul><p>Nothing</p><footer></footer>", PlainContent: "Hello " });
    const bad = await call(account.apiKey, "POST", `/templates/${id}/render`, { TemplateModel: [1] });
    expect(errorsOf(bad.json)).toEqual([{ Code: 422, Field: "TemplateModel" }]);
  });

  it("renders unsaved content (POST /templates/render), checked as a save is, and stores nothing", async () => {
    const before = await call(account.apiKey, "GET", "/templates");
    const { Name: _name, ...content } = receipt;
    const model = { name: "<Ann>", order: 7, items: ["tea"], footer: "<i>f</i>" };
    const res = await call(account.apiKey, "POST", "/templates/render", { ...content, TemplateModel: model });
    expect(res).toEqual({
      status: 200,
      json: { Subject: "Receipt 7 for <Ann>", HTMLContent: "<p>Hello &lt;Ann&gt;</p><ul><li>tea</li></ul><footer><i>f</i></footer>", PlainContent: "Hello <Ann>" },
    });
    expect((await call(account.apiKey, "POST", "/templates/render", { Subject: "Hi", PlainContent: "only text" })).json).toEqual({ Subject: "Hi", PlainContent: "only text" });
    expect(errorsOf((await call(account.apiKey, "POST", "/templates/render", { HTMLContent: "<p>x</p>" })).json)).toEqual([{ Code: 8, Field: "Subject" }]);
    expect(errorsOf((await call(account.apiKey, "POST", "/templates/render", { Subject: "s", HTMLContent: "<p>{{#items}}</p>" })).json)).toEqual([{ Code: 422, Field: "HTMLContent" }]);
    expect(errorsOf((await call(account.apiKey, "POST", "/templates/render", { Subject: "s", PlainContent: "x".repeat(1024 * 1024 + 1) })).json)).toEqual([{ Code: 422, Field: "PlainContent" }]);
    expect(errorsOf((await call(account.apiKey, "POST", "/templates/render", { Subject: "s", PlainContent: "x", TemplateModel: "no" })).json)).toEqual([{ Code: 422, Field: "TemplateModel" }]);
    const nested = "{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}{{x}}{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}";
    const bounded = await call(account.apiKey, "POST", "/templates/render", { Subject: "s", PlainContent: nested, TemplateModel: { a: Array.from({ length: 100 }, () => 1), x: "y" } });
    expect(errorsOf(bounded.json)).toEqual([{ Code: 422, Field: "TemplateModel" }]);
    expect((await call(account.apiKey, "GET", "/templates")).json).toEqual(before.json);
  });

  it("another account's template is 404 on its resources and code 15 on a send", async () => {
    const id = await create(account.apiKey);
    expect((await call(other.apiKey, "GET", `/templates/${id}`)).status).toBe(404);
    expect((await call(other.apiKey, "POST", `/templates/${id}/render`, {})).status).toBe(404);
    expect((await call(other.apiKey, "PUT", `/templates/${id}`, receipt)).status).toBe(404);
    expect((await call(other.apiKey, "DELETE", `/templates/${id}`)).status).toBe(404);
    const sent = await send(other.apiKey, { TemplateID: id, TemplateModel: { name: "Ann" } });
    expect(sent.status).toBe(400);
    expect(sent.json).toEqual({ Errors: [{ Code: 15, Message: "Invalid TemplateID", Field: "TemplateID" }] });
    // Still the owner's.
    expect((await call(account.apiKey, "GET", `/templates/${id}`)).status).toBe(200);
  });

  it("sends the rendered latest version, or the pinned one, and the message keeps the template id and version", async () => {
    const id = await create(account.apiKey);
    await call(account.apiKey, "PUT", `/templates/${id}`, { ...receipt, Subject: "V2 {{order}}", PlainContent: "Two {{name}}" });
    const latest = await send(account.apiKey, { TemplateID: id, TemplateModel: { name: "<b>Ann</b>", order: 9, items: ["x"] } });
    expect(latest.status).toBe(200);
    const pinned = await send(account.apiKey, { TemplateID: id, TemplateVersion: 1, TemplateModel: { name: "Ann", order: 9 } });
    expect(pinned.status).toBe(200);
    const { rows } = await app.ctx.database.pool.query<{ id: string; subject: string; template_id: string; template_version: number; content: { html?: string; text?: string; contentType: string } }>(
      "SELECT id, subject, template_id, template_version, content FROM messages WHERE id = ANY($1::uuid[])",
      [[latest.json.MessageID, pinned.json.MessageID]],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const l = byId.get(latest.json.MessageID as string)!;
    expect([l.subject, Number(l.template_id), l.template_version]).toEqual(["V2 9", id, 2]);
    expect(l.content.html).toBe("<p>Hello &lt;b&gt;Ann&lt;&#x2F;b&gt;</p><ul><li>x</li></ul><footer></footer>");
    expect(l.content.text).toBe("Two <b>Ann</b>");
    expect(l.content.contentType).toBe("HTML");
    const p = byId.get(pinned.json.MessageID as string)!;
    expect([p.subject, Number(p.template_id), p.template_version, p.content.text]).toEqual(["Receipt 9 for Ann", id, 1, "Hello Ann"]);

    // Archived: code 15; a message sent before keeps its content.
    await call(account.apiKey, "DELETE", `/templates/${id}`);
    const archived = await send(account.apiKey, { TemplateID: id });
    expect(errorsOf(archived.json)).toEqual([{ Code: 15, Field: "TemplateID" }]);
    const kept = await app.ctx.database.pool.query("SELECT subject FROM messages WHERE id = $1", [latest.json.MessageID]);
    expect(kept.rows[0]).toEqual({ subject: "V2 9" });
  });

  it("refuses template sends that are malformed, ambiguous, unknown or render past the bounds", async () => {
    const id = await create(account.apiKey);
    expect(errorsOf((await send(account.apiKey, { TemplateID: "abc" })).json)).toEqual([{ Code: 15, Field: "TemplateID" }]);
    expect(errorsOf((await send(account.apiKey, { TemplateID: 999_999_999 })).json)).toEqual([{ Code: 15, Field: "TemplateID" }]);
    expect(errorsOf((await send(account.apiKey, { TemplateID: id, TemplateVersion: 5 })).json)).toEqual([{ Code: 15, Field: "TemplateVersion" }]);
    expect(errorsOf((await send(account.apiKey, { TemplateID: id, TemplateVersion: 1.5 })).json)).toEqual([{ Code: 422, Field: "TemplateVersion" }]);
    expect(errorsOf((await send(account.apiKey, { TemplateModel: { name: "Ann" } })).json)).toEqual([{ Code: 15, Field: "TemplateID" }]);
    expect(errorsOf((await send(account.apiKey, { TemplateID: id, Subject: "Mine" })).json)).toEqual([{ Code: 422, Field: "Subject" }]);
    // Output past the largest message (10 MiB) from a 6 MB model: each item twice.
    const twice = await create(account.apiKey, { Name: "Twice", Subject: "s", HTMLContent: "{{#items}}{{.}}{{.}}{{/items}}" });
    const items = Array.from({ length: 10_000 }, () => "y".repeat(600));
    const huge = await send(account.apiKey, { TemplateID: twice, TemplateModel: { items } });
    expect(huge.status).toBe(422);
    expect(errorsOf(huge.json)).toEqual([{ Code: 422, Field: "TemplateModel" }]);
    // The rendered content is what POST /email checks: an empty subject is code 8.
    const blank = await create(account.apiKey, { Name: "Blank subject", Subject: "{{subject}}", PlainContent: "Hi" });
    expect(errorsOf((await send(account.apiKey, { TemplateID: blank })).json)).toEqual([{ Code: 8, Field: "Subject" }]);
  });
});
