import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { logEvents, type NewEvent } from "../../lib/domain/events/event-log";
import { withTransaction } from "../../lib/storage/transaction";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/** Shared pieces of the webhooks-*.test.ts files: a real HTTP receiver on loopback, events, the API. */

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  json: unknown;
  at: number;
}

export interface Answer {
  status: number;
  body?: string;
  hang?: boolean;
  headers?: Record<string, string>;
}

export type Responder = (req: Received) => Answer | Promise<Answer>;

export interface Receiver {
  url: string;
  requests: Received[];
  /** Answers of the next requests, in order; afterwards `fallback`. */
  script: Answer[];
  fallback: Responder;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** `port`: listen on this one (a receiver that comes back where it was); default any free port. */
export async function startReceiver(fallback: Responder = () => ({ status: 200, body: "ok" }), port = 0): Promise<Receiver> {
  const requests: Received[] = [];
  const waiters: (() => void)[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: "",
    requests,
    script: [],
    fallback,
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
      return requests.slice(0, count);
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const rec: Received = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body,
        json,
        at: Date.now(),
      };
      requests.push(rec);
      for (const w of waiters.splice(0)) w();
      const answer = receiver.script.shift() ?? (await receiver.fallback(rec));
      if (answer.hang) {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, { "Content-Type": "text/plain", ...answer.headers });
      res.end(answer.body ?? "");
    });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** A message row of the account (what POST /email writes), for events to refer to. */
export async function insertMessage(app: TestApp, accountId: string, fromDomain = "example.com"): Promise<string> {
  const id = randomUUID();
  await app.ctx.database.pool.query(
    `INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content)
     VALUES ($1, $2, $3, $4, 'Hello', '{}', '{}')`,
    [id, accountId, `sender@${fromDomain}`, fromDomain],
  );
  return id;
}

/** Logs events the way the delivery engine and tracking do: logEvents inside a transaction. */
export async function logTestEvents(app: TestApp, events: NewEvent[]): Promise<void> {
  await withTransaction(app.ctx.database, (tx) => logEvents(tx, app.ctx.boss, events));
}

export async function registerWebhook(app: TestApp, apiKey: string, Event: string, WebhookURL: string): Promise<number> {
  const res = await app.fetch("/api/v1/webhooks", { method: "POST", headers: bearer(apiKey), body: JSON.stringify({ Event, WebhookURL }) });
  const body = (await res.json()) as { NewWebhookID: number };
  if (res.status !== 200) throw new Error(`POST /webhooks answered ${res.status}: ${JSON.stringify(body)}`);
  return body.NewWebhookID;
}

export async function listWebhooksOf(app: TestApp, apiKey: string): Promise<Record<string, string>[]> {
  const res = await app.fetch("/api/v1/webhooks", { headers: bearer(apiKey) });
  return ((await res.json()) as { Webhooks: Record<string, string>[] }).Webhooks;
}

export async function until<T>(probe: () => Promise<T>, accept: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (accept(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sender-authentication DNS that knows no name (inbound posting's SPF, DKIM and DMARC lookups: internet DNS is outside the tests). */
export async function noSenderDns(name: string, rrtype: string): Promise<string[][]> {
  throw Object.assign(new Error(`no ${rrtype} for ${name}`), { code: "ENOTFOUND" });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until none of the webhook's notifications is pending and returns their rows: a
 * delivered, failed or held row is never posted again (the dispatcher claims only pending
 * rows, lib/storage/notification-rows.ts), so this is what a "no further post" test waits for.
 */
export async function settledNotifications(app: TestApp, webhookId: number, timeoutMs = 15_000): Promise<{ status: string; attempts: number }[]> {
  return until(
    async () =>
      (
        await app.ctx.database.pool.query<{ status: string; attempts: number }>(
          "SELECT status, attempts FROM webhook_notifications WHERE webhook_id = $1 ORDER BY id",
          [webhookId],
        )
      ).rows,
    (rows) => rows.every((r) => r.status !== "pending"),
    timeoutMs,
  );
}

/**
 * Resolves once `ms` have passed since the receiver's last request (or now, if it has none):
 * a negative window anchored where a wrong post would come, instead of a fixed sleep after it.
 */
export async function quietSince(receiver: Receiver, ms: number): Promise<void> {
  const last = receiver.requests.at(-1)?.at ?? Date.now();
  await sleep(Math.max(0, last + ms - Date.now()));
}

/** An inbound test's start: an app with `env` (and `options`), an account of `domain`, a receiver, and a route from `match` to it (200 asserted). */
export async function startRoutedApp(env: Record<string, string>, account: { name: string; domain: string }, match: string, options?: Parameters<typeof startTestApp>[1]) {
  const app = await startTestApp(env, options);
  const created = await createTestAccount(app.ctx, account);
  const receiver = await startReceiver();
  const res = await app.fetch("/api/v1/inbound/routes", {
    method: "POST",
    headers: bearer(created.apiKey),
    body: JSON.stringify({ Match: match, WebhookURL: `${receiver.url}/in` }),
  });
  if (res.status !== 200) throw new Error(`the route was refused: ${res.status} ${await res.text()}`);
  return { app, receiver, accountId: created.accountId, apiKey: created.apiKey };
}
