import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiKeyScope } from "../../lib/contract/api-keys";
import { authenticateApiKey, createApiKey, hashApiKey, listApiKeys } from "../../lib/domain/accounts/api-keys";
import { addSenderDomain } from "../../lib/domain/accounts/sender-domains";
import { bearer, createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, simpleEmail } from "../support/delivery-helpers";
import { submissionEnv } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";
import { runCli, runCliJson } from "./cli-support";

/** Key scopes and sender domains (docs/contract.md §17.2, §17.3) over the API and SMTP submission. */
describe("scoped API keys", { timeout: 180_000 }, () => {
  let app: TestApp;
  let port: number;
  let accountId: string;
  const keys = {} as Record<ApiKeyScope | "limited" | "legacy", string>;
  beforeAll(async () => {
    const s = await submissionEnv();
    port = s.port;
    app = await startTestApp(s.env);
    const database = app.ctx.database;
    ({ apiKey: keys.full, accountId } = await createTestAccount(app.ctx));
    await addSenderDomain(database, accountId, "other.example", { verified: true });
    keys.send = (await createApiKey(database, accountId, "sender", { scope: "send" })).apiKey;
    keys.read = (await createApiKey(database, accountId, "reader", { scope: "read" })).apiKey;
    keys.limited = (await createApiKey(database, accountId, "shop only", { scope: "send", senderDomains: ["Example.COM"] })).apiKey;
    // A key as every key made before scopes existed: inserted without the new columns.
    keys.legacy = "mr_legacy-key-made-before-scopes-existed-0123456";
    await app.ctx.database.pool.query("INSERT INTO api_keys (account_id, label, prefix, key_hash) VALUES ($1, 'old', 'mr_legacy-k', $2)", [
      accountId,
      hashApiKey(keys.legacy),
    ]);
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  /** One request of each kind of endpoint, with the status it answers when allowed. */
  const endpoints: { kind: ApiKeyScope; method: string; path: string; body?: () => unknown; ok: number }[] = [
    { kind: "send", method: "POST", path: "/email", body: () => simpleEmail("ann@example.org"), ok: 200 },
    { kind: "read", method: "GET", path: "/events", ok: 200 },
    { kind: "read", method: "GET", path: "/stats?StartDate=0&EndDate=3600&Interval=hour", ok: 200 },
    { kind: "read", method: "GET", path: "/webhooks", ok: 200 },
    { kind: "read", method: "GET", path: "/suppressions", ok: 200 },
    { kind: "full", method: "POST", path: "/webhooks", body: () => ({ Event: "delivery", WebhookURL: "http://127.0.0.1:9/hook" }), ok: 200 },
    { kind: "full", method: "DELETE", path: "/webhooks/999999", ok: 404 },
    { kind: "full", method: "POST", path: "/suppressions", body: () => ({ Email: "scoped@example.org" }), ok: 200 },
    { kind: "full", method: "DELETE", path: "/suppressions/nobody%40example.org", ok: 404 },
  ];
  const call = (key: string, e: (typeof endpoints)[number]) =>
    app.fetch(`/api/v1${e.path}`, { method: e.method, headers: bearer(key), ...(e.body && { body: JSON.stringify(e.body()) }) });

  const cases: [ApiKeyScope | "legacy", ApiKeyScope[]][] = [
    ["full", ["full", "send", "read"]],
    ["legacy", ["full", "send", "read"]],
    ["send", ["send"]],
    ["read", ["read"]],
  ];
  it.each(cases)("a %s key may call exactly the endpoints of %j; others are 403 naming its scope", async (which, allowed) => {
    for (const e of endpoints) {
      const res = await call(keys[which], e);
      const body = (await res.json()) as { Errors?: { Code: number; Message: string }[] };
      const what = `${which} key, ${e.method} ${e.path}`;
      if (allowed.includes(e.kind)) {
        expect(res.status, `${what}: ${JSON.stringify(body)}`).toBe(e.ok);
        continue;
      }
      const scope = which === "legacy" ? "full" : which;
      expect(res.status, what).toBe(403);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(body.Errors, what).toEqual([
        {
          Code: 403,
          Message: `API key scope does not allow this request: this key's scope is ${scope}, the request needs ${e.kind === "full" ? "a full key" : `a ${e.kind} or full key`}`,
        },
      ]);
    }
  });

  it("checks the key before the scope: a bad key is still 401, the public document still public", async () => {
    const res = await app.fetch("/api/v1/webhooks", { method: "POST", headers: bearer("mr_nope"), body: "{}" });
    expect(res.status).toBe(401);
    expect((await app.fetch("/api/v1/openapi.json")).status).toBe(200);
  });

  it("keeps keys made before scopes full, and lists each key's scope", async () => {
    const auth = await authenticateApiKey(app.ctx.database, `Bearer ${keys.legacy}`);
    expect(auth.ok && auth.key.scope).toBe("full");
    expect(auth.ok && auth.key.senderDomains).toBeNull();
    const listed = await listApiKeys(app.ctx.database, accountId);
    expect(Object.fromEntries(listed.map((k) => [k.label, [k.scope, k.senderDomains]]))).toMatchObject({
      old: ["full", null],
      sender: ["send", null],
      reader: ["read", null],
      "shop only": ["send", ["example.com"]],
    });
  });

  it("a domain-limited key sends From its domains only: code 32 for another verified domain", async () => {
    const ok = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(keys.limited), body: JSON.stringify(simpleEmail("ann@example.org")) });
    expect(ok.status).toBe(200);
    const other = simpleEmail("ann@example.org", { From: { name: "", email: "news@other.example" } });
    const refused = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(keys.limited), body: JSON.stringify(other) });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ Errors: [{ Code: 32, Message: "Domain is not activated", Field: "From.email" }] });
    // The same From is fine for a key without a list.
    const unlimited = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(keys.send), body: JSON.stringify(other) });
    expect(unlimited.status).toBe(200);
  });

  describe("SMTP submission", () => {
    const send = async (pass: string, mail: nodemailer.SendMailOptions) => {
      const t = nodemailer.createTransport({ host: "127.0.0.1", port, requireTLS: true, auth: { user: "apikey", pass }, tls: { rejectUnauthorized: false } });
      try {
        return await t.sendMail({ to: "ann@example.org", subject: "x", text: "x", ...mail });
      } finally {
        t.close();
      }
    };
    const refusal = (pass: string, mail: nodemailer.SendMailOptions) =>
      send(pass, mail).then(
        () => "accepted",
        (e: { response?: string }) => e.response ?? String(e),
      );

    it("accepts AUTH with a full, send or pre-scope key; refuses a read key with 535 naming its scope", async () => {
      for (const which of ["full", "send", "legacy"] as const) {
        const info = await send(keys[which], { from: "shop@example.com" });
        expect(info.response, which).toMatch(/^250 2\.0\.0 OK /);
      }
      expect(await refusal(keys.read, { from: "shop@example.com" })).toBe(
        "535 5.7.8 Authentication refused: this API key's scope is read; SMTP submission needs a send or full key",
      );
    });

    it("holds a domain-limited key to its domains at MAIL FROM and in the From and Sender headers", async () => {
      expect((await send(keys.limited, { from: "shop@example.com" })).response).toMatch(/^250 /);
      expect(await refusal(keys.limited, { from: "news@other.example" })).toBe("550 5.7.1 Sender domain other.example is not one of the sender domains of this API key");
      // Envelope on the allowed domain, header From on another.
      expect(await refusal(keys.limited, { from: "news@other.example", envelope: { from: "shop@example.com", to: ["ann@example.org"] } })).toBe(
        "550 5.7.1 Sender domain other.example is not one of the sender domains of this API key",
      );
      expect(await refusal(keys.limited, { from: "shop@example.com", sender: "ops@other.example" })).toBe(
        "550 5.7.1 Sender domain other.example is not one of the sender domains of this API key",
      );
      expect((await send(keys.send, { from: "news@other.example" })).response).toMatch(/^250 /);
    });
  });

  describe("mailroom keys", () => {
    const env = () => ({ DATABASE_URL: app.ctx.config.databaseUrl! });
    it("creates keys with a scope and domains (JSON with apiKey) and lists them with their scope", async () => {
      const made = await runCliJson<{ apiKey: string; scope: string; senderDomains: string[] | null }>(
        ["keys", "create", "--account", accountId, "--scope", "read", "--label", "cli reader"],
        env(),
      );
      expect(made).toMatchObject({ scope: "read", senderDomains: null });
      expect(made.apiKey).toMatch(/^mr_/);
      const refused = await app.fetch("/api/v1/email", { method: "POST", headers: bearer(made.apiKey), body: JSON.stringify(simpleEmail("ann@example.org")) });
      expect(refused.status).toBe(403);
      expect((await app.fetch("/api/v1/events", { headers: bearer(made.apiKey) })).status).toBe(200);

      const limited = await runCliJson<{ apiKey: string; scope: string; senderDomains: string[] }>(
        ["keys", "create", "--account", accountId, "--scope", "send", "--domains", "a.example,B.example", "--label", "cli sender"],
        env(),
      );
      expect(limited).toMatchObject({ scope: "send", senderDomains: ["a.example", "b.example"] });
      const plain = await runCliJson<{ scope: string }>(["keys", "create", "--account", accountId], env());
      expect(plain.scope).toBe("full");

      const listed = await runCliJson<{ label: string; scope: string; senderDomains: string[] | null }[]>(["keys", "list", "--account", accountId], env());
      expect(listed.find((k) => k.label === "cli reader")).toMatchObject({ scope: "read", senderDomains: null });
      expect(listed.find((k) => k.label === "cli sender")).toMatchObject({ scope: "send", senderDomains: ["a.example", "b.example"] });
      const table = await runCli(["keys", "list", "--account", accountId], env());
      expect(table.stdout).toMatch(/SCOPE/);
      expect(table.stdout).toMatch(/cli sender\s+send\s+a\.example,b\.example/);
    });

    it("refuses an unknown scope and a bad domain", async () => {
      expect(await runCli(["keys", "create", "--account", accountId, "--scope", "admin"], env())).toMatchObject({
        code: 1,
        stderr: 'error: Unknown scope "admin": use full, send, read\n',
      });
      expect(await runCli(["keys", "create", "--account", accountId, "--domains", "not a domain"], env())).toMatchObject({
        code: 1,
        stderr: 'error: "not a domain" is not a domain name\n',
      });
    });
  });
});
