import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../lib/domain/accounts/api-keys";
import { addSuppression } from "../../lib/domain/accounts/suppressions";
import { MCP_TOOL_NAMES } from "../../lib/mcp/tools";
import { createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, simpleEmail, waitFor } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";
import { CLI } from "./cli-support";

/** The MCP server (docs/contract.md §17.4) through the SDK's own Client, over streamable HTTP and over stdio (the real CLI). */
describe("MCP server", { timeout: 240_000 }, () => {
  let app: TestApp;
  let fullKey: string;
  let readKey: string;
  let accountId: string;
  const clients: Client[] = [];
  beforeAll(async () => {
    app = await startTestApp();
    ({ apiKey: fullKey, accountId } = await createTestAccount(app.ctx));
    readKey = (await createApiKey(app.ctx.database, accountId, "reader", { scope: "read" })).apiKey;
    await addSuppression(app.ctx.database, { accountId, email: "gone@example.org", reason: "hard-bounce" });
  });
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  async function connect(transport: Transport): Promise<Client> {
    const client = new Client({ name: "mailroom-test", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const overHttp = (key: string) =>
    connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  const overStdio = (key: string) =>
    connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "mcp"],
        env: { ...(process.env as Record<string, string>), MAILROOM_API_KEY: key, MAILROOM_API_URL: app.url, LOG_LEVEL: "silent" },
        stderr: "pipe",
      }),
    );

  type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };
  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    const text = result.content[0]?.text ?? "";
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { isError: result.isError === true, text, json: json as Record<string, unknown> };
  };

  /** What a user relies on, through either transport: the tools, a send, and the message's events. */
  async function sendsAndReads(client: Client, subject: string) {
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    const send = tools.tools.find((t) => t.name === "send-email")!;
    expect(send.inputSchema.properties).toHaveProperty("From");
    expect(send.inputSchema.required).toEqual(expect.arrayContaining(["From", "To", "Subject", "ContentType"]));

    const sent = await call(client, "send-email", simpleEmail("ann@example.org", { Subject: subject }));
    expect(sent.isError, sent.text).toBe(false);
    const messageId = sent.json.MessageID as string;
    expect(messageId).toMatch(/^[0-9a-f-]{36}$/);

    const events = await call(client, "get-events", { MessageID: messageId, RetrieveCount: 10 });
    expect(events.isError, events.text).toBe(false);
    expect((events.json.Events as { Event: string }[]).map((e) => e.Event)).toContain("accepted");

    const message = await waitFor("the delivered event", async () => {
      const m = await call(client, "get-message", { MessageID: messageId });
      return (m.json.Events as { Event: string }[]).some((e) => e.Event === "delivered") ? m : undefined;
    });
    expect(message.json).toMatchObject({ MessageID: messageId, Headers: { Subject: subject } });
    return messageId;
  }

  describe("over streamable HTTP (POST /mcp)", () => {
    it("lists the tools, sends a message and reads its events", async () => {
      await sendsAndReads(await overHttp(fullKey), "Over HTTP");
    });

    it("manages webhooks and lists suppressions with a full key", async () => {
      const client = await overHttp(fullKey);
      const created = await call(client, "create-webhook", { Event: "delivery", WebhookURL: "http://127.0.0.1:9/hook" });
      expect(created.isError, created.text).toBe(false);
      const id = created.json.NewWebhookID as number;
      const listed = await call(client, "list-webhooks");
      expect((listed.json.Webhooks as { WebhookID: string }[]).map((w) => w.WebhookID)).toContain(String(id));
      expect((await call(client, "delete-webhook", { WebhookID: id })).isError).toBe(false);
      const again = await call(client, "delete-webhook", { WebhookID: id });
      expect(again).toMatchObject({ isError: true, json: { Errors: [{ Code: 404, Message: "Resource not found" }] } });

      const suppressions = await call(client, "list-suppressions", { Reason: "hard-bounce" });
      expect(suppressions.json).toMatchObject({ TotalRecords: 1, Suppressions: [{ Email: "gone@example.org", Reason: "hard-bounce" }] });
    });

    it("validates input with the API's rules: schema errors and the API's own refusals are error results", async () => {
      const client = await overHttp(fullKey);
      const noTo = await call(client, "send-email", { From: "shop@example.com", Subject: "x", ContentType: "Text", PlainContent: "x" });
      expect(noTo.isError).toBe(true);
      expect(noTo.text).toMatch(/To/);
      const unverified = await call(client, "send-email", simpleEmail("ann@example.org", { From: "x@unverified.example" }));
      expect(unverified).toMatchObject({ isError: true, json: { Errors: [{ Code: 32, Message: "Domain is not activated", Field: "From.email" }] } });
      const badCount = await call(client, "get-events", { RetrieveCount: 500 });
      expect(badCount.isError).toBe(true);
      const badUrl = await call(client, "create-webhook", { Event: "delivery", WebhookURL: "ftp://x.example/" });
      expect(badUrl.isError).toBe(true);
    });

    it("binds a read key to its scope: it reads but cannot send or change anything", async () => {
      const client = await overHttp(readKey);
      expect((await call(client, "list-webhooks")).isError).toBe(false);
      expect((await call(client, "get-events")).isError).toBe(false);
      const sent = await call(client, "send-email", simpleEmail("ann@example.org"));
      expect(sent.isError).toBe(true);
      expect(sent.json).toEqual({
        Errors: [{ Code: 403, Message: "API key scope does not allow this request: this key's scope is read, the request needs a send or full key" }],
      });
      const created = await call(client, "create-webhook", { Event: "delivery", WebhookURL: "http://127.0.0.1:9/hook" });
      expect(created).toMatchObject({ isError: true, json: { Errors: [{ Code: 403 }] } });
      const { rows } = await app.ctx.database.pool.query("SELECT count(*)::int AS n FROM messages WHERE subject = 'Hello' AND account_id = $1", [accountId]);
      expect(rows[0].n).toBe(0);
    });

    it("refuses a request without a valid key with the 401 envelope, and GET with 405", async () => {
      const init = { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: "{}" };
      const none = await app.fetch("/mcp", init);
      expect(none.status).toBe(401);
      expect(await none.json()).toEqual({ Errors: [{ Code: 1, Message: "Missing SenderAPIKey" }] });
      const wrong = await app.fetch("/mcp", { ...init, headers: { ...init.headers, Authorization: "Bearer mr_wrong" } });
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toEqual({ Errors: [{ Code: 13, Message: "Invalid sender API key" }] });
      // A bare JSON-RPC call (docs/api.md's curl): stateless, no session or initialize needed.
      const list = await app.fetch("/mcp", {
        ...init,
        headers: { ...init.headers, Authorization: `Bearer ${readKey}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(list.status).toBe(200);
      const listed = (await list.json()) as { result: { tools: { name: string }[] } };
      expect(listed.result.tools).toHaveLength(MCP_TOOL_NAMES.length);
      // The body is bounded before it is parsed (4 MiB).
      const big = await app.fetch("/mcp", {
        ...init,
        headers: { ...init.headers, Authorization: `Bearer ${fullKey}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "send-email", arguments: { Subject: "x".repeat(5 * 1024 * 1024) } } }),
      });
      expect(big.status).toBe(413);
      const get = await app.fetch("/mcp", { headers: { Authorization: `Bearer ${fullKey}` } });
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
    });
  });

  describe("over stdio (npx mailroom mcp)", () => {
    it("lists the tools, sends a message and reads its events", async () => {
      await sendsAndReads(await overStdio(fullKey), "Over stdio");
    });

    it("binds a read key: it cannot send", async () => {
      const client = await overStdio(readKey);
      const sent = await call(client, "send-email", simpleEmail("ann@example.org", { Subject: "read over stdio" }));
      expect(sent.isError).toBe(true);
      expect(sent.text).toMatch(/scope is read/);
      expect((await call(client, "list-suppressions")).json).toMatchObject({ TotalRecords: 1 });
    });
  });
});
