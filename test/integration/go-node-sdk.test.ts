import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The official Go and Node.js SDKs of SendLayer, replayed: neither can be
 * fetched here (the Node package is not on the npm registry, a Go module
 * cannot be fetched), so each request is the exact one the SDK builds, read
 * from its public source, and each answer is held to what the SDK's decoder
 * needs, as test/integration/python-sdk.test.ts does for the Python SDK.
 *
 * Go (`encoding/json` into the SDK's structs): `From` one object and `To`
 * a list of `{"email","name"?}` (`name` omitted when empty), `ContentType`
 * "HTML" when an HTML body is given else "Text", both bodies when both are
 * given, each attachment `{Content, Type, Filename, Disposition:
 * "attachment", ContentId: i+1}` (an int), empty lists and maps omitted,
 * headers `Content-Type: application/json` and `User-Agent:
 * SendLayer-Go-SDK/1.0.0`; events with `StartDate`, `EndDate` (Unix
 * seconds), `Event`, `MessageID`, `StartFrom`, `RetrieveCount`; webhooks
 * `{WebhookURL, Event}` and DELETE /webhooks/{int}. Its decoder needs
 * `MessageID` a string, `NewWebhookID` an integer, each listed `WebhookID` a
 * string, `TotalRecords`, `LoggedAt` and `Message.Headers.Size` integers
 * (LoggedAt is read into an int64), the header lists arrays.
 *
 * Node.js (axios): `From: {email, name}` (an absent name dropped by
 * JSON.stringify), `To` always a list, only ONE body (`HTMLContent` when
 * html is given, else `PlainContent`), attachments with `ContentID` (capital
 * D) = the first 8 hex digits of SHA-1 of the path as an integer and
 * `Disposition` "attachment"; events with `MessageId` (lower-case d) and
 * `RetrieveCount`; it reads `MessageID`, `Webhooks`, `NewWebhookID`, and on
 * an error status falls back to its own message (it looks for `Error`).
 */

const PDF = Buffer.from("%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n");
const GO_HEADERS = { "Content-Type": "application/json", "User-Agent": "SendLayer-Go-SDK/1.0.0" };
const NODE_HEADERS = { "Content-Type": "application/json", "User-Agent": "axios/1.7.9", Accept: "application/json, text/plain, */*" };

type Go = "string" | "int" | "array" | "object";
/** Whether encoding/json can decode `value` into a field of Go type `type` (null leaves the zero value). */
function goDecodes(value: unknown, type: Go): boolean {
  if (value === null || value === undefined) return true;
  if (type === "string") return typeof value === "string";
  if (type === "int") return Number.isInteger(value);
  if (type === "array") return Array.isArray(value);
  return typeof value === "object" && !Array.isArray(value);
}

describe("the official Go and Node.js SDKs' requests", () => {
  let app: TestApp;
  let apiKey: string;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: Record<string, unknown>[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    apiKey = (await createTestAccount(app.ctx)).apiKey;
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
    await app?.stop();
  });

  async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    const res = await app.fetch(`/api/v1/${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  }

  async function captured(messageId: string, recipient: string) {
    await waitForEvent(app.ctx, messageId, "delivered", recipient);
    const { rows } = await app.ctx.database.pool.query<{ raw: Buffer }>("SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1", [messageId]);
    return simpleParser(rows[0]!.raw);
  }

  it("Go: a send with both bodies, CC, ReplyTo, headers, tags and two attachments numbered 1 and 2; then its events", async () => {
    const sent = await call("POST", "email", GO_HEADERS, {
      From: { email: "sender@example.com", name: "Go Sender" },
      To: [{ email: "ann@example.org", name: "Ann" }, { email: "bob@example.org" }],
      Subject: "Invoice",
      ContentType: "HTML",
      HTMLContent: "<p>Your invoice</p>",
      PlainContent: "Your invoice",
      CC: [{ email: "carl@example.org" }],
      ReplyTo: [{ email: "replies@example.com" }],
      Attachments: [
        { Content: PDF.toString("base64"), Type: "application/pdf", Filename: "invoice.pdf", Disposition: "attachment", ContentId: 1 },
        { Content: Buffer.from("a,b\n1,2\n").toString("base64"), Type: "text/csv", Filename: "lines.csv", Disposition: "attachment", ContentId: 2 },
      ],
      Headers: { "X-Order": "42" },
      Tags: ["invoice"],
    });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    expect(goDecodes(sent.json.MessageID, "string")).toBe(true);
    const messageId = sent.json.MessageID as string;

    const mail = await captured(messageId, "ann@example.org");
    expect(mail.html).toContain("Your invoice");
    expect(mail.text?.trim()).toBe("Your invoice");
    expect(mail.headers.get("x-order")).toBe("42");
    expect(mail.attachments.map((a) => [a.filename, a.contentType, a.contentId])).toEqual([
      ["invoice.pdf", "application/pdf", "<1>"],
      ["lines.csv", "text/csv", "<2>"],
    ]);
    expect(Buffer.compare(mail.attachments[0]!.content, PDF)).toBe(0);

    const start = Math.floor(Date.now() / 1000) - 3600;
    const query = new URLSearchParams({ StartDate: String(start), EndDate: String(start + 7200), Event: "delivered", MessageID: messageId, StartFrom: "0", RetrieveCount: "10" });
    const events = await call("GET", `events?${query}`, { ...GO_HEADERS });
    expect(events.status, JSON.stringify(events.json)).toBe(200);
    expect(goDecodes(events.json.TotalRecords, "int")).toBe(true);
    const list = events.json.Events as Record<string, unknown>[];
    expect(list.length).toBeGreaterThanOrEqual(1);
    for (const e of list) {
      expect(e.Event).toBe("delivered");
      expect(goDecodes(e.LoggedAt, "int") && e.LoggedAt !== null).toBe(true);
      for (const k of ["LogLevel", "Recipient", "Reason", "Ip"]) expect(goDecodes(e[k], "string"), k).toBe(true);
      expect(goDecodes(e.GeoLocation, "object")).toBe(true);
      const headers = (e.Message as { Headers: Record<string, unknown> }).Headers;
      expect(headers.MessageId).toBe(messageId);
      for (const k of ["From", "ReplyTo", "To", "Cc", "Bcc"]) expect(goDecodes(headers[k], "array"), k).toBe(true);
      expect(goDecodes(headers.Size, "int")).toBe(true);
      for (const k of ["Subject", "Transport"]) expect(goDecodes(headers[k], "string"), k).toBe(true);
    }
  });

  it("Go: a text-only send has ContentType Text and no HTMLContent; a refusal is a 400 the SDK maps to its validation error (as it maps 422)", async () => {
    const sent = await call("POST", "email", GO_HEADERS, { From: { email: "sender@example.com" }, To: [{ email: "dee@example.org" }], Subject: "Plain", ContentType: "Text", PlainContent: "Hello" });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    expect((await captured(sent.json.MessageID as string, "dee@example.org")).text?.trim()).toBe("Hello");
    const refused = await call("POST", "email", GO_HEADERS, { From: { email: "sender@example.com" }, To: [{ email: "dee@example.org" }], Subject: "", ContentType: "Text", PlainContent: "x" });
    expect(refused.status).toBe(400); // both SDKs map 400 (and 422) to their validation error
  });

  it("Go and Node: a webhook created, listed and deleted as each SDK does it, and its notification received", async () => {
    const created = await call("POST", "webhooks", GO_HEADERS, { WebhookURL: receiverUrl, Event: "delivery" });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    expect(goDecodes(created.json.NewWebhookID, "int") && typeof created.json.NewWebhookID === "number").toBe(true);
    const listed = await call("GET", "webhooks", NODE_HEADERS);
    const hooks = listed.json.Webhooks as Record<string, unknown>[];
    const mine = hooks.find((w) => w.WebhookURL === receiverUrl)!;
    for (const k of ["WebhookID", "WebhookURL", "Event", "Status"]) expect(goDecodes(mine[k], "string"), k).toBe(true);
    expect(mine.WebhookID).toBe(String(created.json.NewWebhookID));

    const sent = await call("POST", "email", NODE_HEADERS, { From: { email: "sender@example.com" }, To: [{ email: "erin@example.org" }], Subject: "Hook", ContentType: "Text", PlainContent: "x" });
    expect(sent.status).toBe(200);
    await waitForEvent(app.ctx, sent.json.MessageID as string, "delivered", "erin@example.org");
    await expect.poll(() => received.length, { timeout: 20_000 }).toBeGreaterThan(0);

    const deleted = await call("DELETE", `webhooks/${created.json.NewWebhookID as number}`, NODE_HEADERS);
    expect(deleted.status).toBe(200);
    const after = await call("GET", "webhooks", GO_HEADERS);
    expect((after.json.Webhooks as { WebhookURL: string }[]).some((w) => w.WebhookURL === receiverUrl)).toBe(false);
  });

  it("Node: a single HTML body, a From without name, and an attachment whose ContentID is the SDK's SHA-1 number of its path; then events by MessageId", async () => {
    const path = "./invoices/invoice.pdf";
    const contentId = parseInt(createHash("sha1").update(path).digest("hex").slice(0, 8), 16);
    const sent = await call("POST", "email", NODE_HEADERS, {
      From: { email: "sender@example.com", name: undefined },
      To: [{ email: "fay@example.org" }],
      Subject: "Node invoice",
      ContentType: "HTML",
      HTMLContent: "<p>Attached</p>",
      Tags: ["node"],
      Attachments: [{ Content: PDF.toString("base64"), Type: "application/pdf", Filename: "invoice.pdf", Disposition: "attachment", ContentID: contentId }],
    });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    const messageId = sent.json.MessageID as string;
    const mail = await captured(messageId, "fay@example.org");
    expect(mail.attachments[0]!.contentId).toBe(`<${contentId}>`);
    expect(Buffer.compare(mail.attachments[0]!.content, PDF)).toBe(0);

    const events = await call("GET", `events?${new URLSearchParams({ MessageId: messageId, RetrieveCount: "100" })}`, NODE_HEADERS);
    expect(events.status).toBe(200);
    expect((events.json.Events as { Event: string }[]).map((e) => e.Event).sort()).toEqual(["accepted", "delivered"]);

    const refused = await call("POST", "email", NODE_HEADERS, { From: { email: "sender@example.com" }, To: [{ email: "fay@example.org" }], Subject: "x", ContentType: "HTML" });
    expect(refused.status).toBe(400); // both SDKs map 400 (and 422) to their validation error
    expect(refused.json.Errors).toEqual([expect.objectContaining({ Code: expect.any(Number) as number })]);
  });
});
