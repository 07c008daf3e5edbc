import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorEnvelopeSchema } from "../../lib/contract/errors";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../lib/storage/embedded";
import { bearer, createTestAccount } from "../support/fixtures";
import { waitFor } from "../support/processes";
import { startTestApp, type TestApp } from "../support/test-app";

/** The processes whose parent is `parent`, from /proc (the 4th field of stat, after the name in parentheses). */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/**
 * Faults: a PostgreSQL server that keeps its connections open but answers
 * nothing (every process of it stopped with SIGSTOP: a hung host, a stalled
 * disk). The connections the pool already holds see no error; only the query
 * timeout (MAILROOM_DB_QUERY_TIMEOUT, docs/adr/0514) ends their statements.
 * The API answers 503 in the JSON envelope within a bound, /readyz says the
 * database does not answer, and once the server runs again the app serves
 * by itself. The test owns its server so that stopping it touches nothing else.
 */
describe("a PostgreSQL server that stops answering", () => {
  let dataDir: string;
  let pgServer: EmbeddedDatabase;
  let app: TestApp;
  let headers: Record<string, string>;
  let frozen = false;

  const freeze = (signal: "SIGSTOP" | "SIGCONT") => {
    // PostgreSQL puts each backend in a session of its own: the postmaster and its children, one by one.
    const postmaster = pgServer.pid()!;
    for (const pid of [postmaster, ...childrenOf(postmaster)]) process.kill(pid, signal);
    frozen = signal === "SIGSTOP";
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-pg-hung-"));
    pgServer = await startEmbeddedPostgres({ dataDir, port: 0, ownProcessGroup: true });
    app = await startTestApp({ DATABASE_URL: pgServer.url, MAILROOM_WORKERS: "off", MAILROOM_DB_QUERY_TIMEOUT: "1s" });
    headers = bearer((await createTestAccount(app.ctx)).apiKey);
  }, 120_000);

  afterAll(async () => {
    if (frozen) freeze("SIGCONT");
    await app?.stop();
    await pgServer?.stop({ force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  const body = JSON.stringify({ From: { email: "a@example.com" }, To: [{ email: "b@example.org" }], Subject: "hung", ContentType: "Text", PlainContent: "hi" });
  const send = () => app.fetch("/api/v1/email", { method: "POST", headers, body, signal: AbortSignal.timeout(30_000) });
  const timed = async (request: () => Promise<Response>) => {
    const started = Date.now();
    const res = await request();
    return { status: res.status, retryAfter: res.headers.get("retry-after"), json: (await res.json()) as unknown, ms: Date.now() - started };
  };

  it("answers 503 envelopes within the query timeout while the server is stopped, and serves again once it runs", async () => {
    // Open connections in the pool: the requests during the stop take these idle ones first.
    const warm = await Promise.all([
      ...Array.from({ length: 8 }, () => timed(send)),
      ...Array.from({ length: 4 }, () => timed(() => app.fetch("/api/v1/events", { headers }))),
    ]);
    expect(warm.map((w) => w.status)).toEqual(Array(12).fill(200));
    expect(app.ctx.database.pool.idleCount).toBeGreaterThanOrEqual(2);

    freeze("SIGSTOP");
    const during = await Promise.all([
      ...Array.from({ length: 4 }, () => timed(send)),
      timed(() => app.fetch("/api/v1/events", { headers, signal: AbortSignal.timeout(30_000) })),
    ]);
    for (const answer of during) {
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).not.toBeNull();
      expect(errorEnvelopeSchema.safeParse(answer.json).success).toBe(true);
      // Without a query timeout these waited for ever on the pooled connections.
      expect(answer.ms).toBeLessThan(8_000);
    }
    const ready = await timed(() => app.fetch("/readyz", { signal: AbortSignal.timeout(30_000) }));
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(8_000);
    expect(JSON.stringify(ready.json)).toMatch(/unreachable/);

    freeze("SIGCONT");
    await waitFor("a send accepted once the server runs again", async () => (await timed(send)).status === 200, 30_000);
    expect((await timed(() => app.fetch("/readyz"))).status).toBe(200);
    // The connections whose statements timed out were dropped, not handed out again with a statement in flight.
    const after = await Promise.all(Array.from({ length: 8 }, () => timed(send)));
    expect(after.map((a) => a.status)).toEqual(Array(8).fill(200));
  }, 120_000);
});
