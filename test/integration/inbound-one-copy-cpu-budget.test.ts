import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getInboundAddress } from "../../lib/inbound/inbound-server";
import { startWorkers, type RunningWorkers } from "../../lib/workers/start-workers";
import { readStat } from "../support/proc-stats";
import type { TestApp } from "../support/test-app";
import { noSenderDns, sleep, startRoutedApp, type Receiver } from "./webhooks-helpers";

/**
 * One SMTP transaction is stored once (docs/adr/0807): a 10 MB message to
 * 100 `+tag` recipients of one route, over real SMTP, is one raw copy in the
 * inbound tables, one inbound message listing the 100 recipients, and one
 * post to a real HTTP receiver. The CPU of the whole thing (this process,
 * which runs the app and its workers, and the PostgreSQL backends of its
 * database, from /proc) stays under 8 s: each copy was parsed,
 * authenticated and base64-encoded before (about 56 s). The target is 3 s;
 * on the 2-core machine of 2026-12-02 it took 3.5–4.9 s, so the bound keeps
 * the fix from regressing and the figure is printed for the record.
 */
const RECIPIENTS = 100;

/** A message of just under 10 MiB (the default MAILROOM_INBOUND_MAX_MESSAGE_BYTES): a text part and one base64 attachment. */
function bigMessage(): Buffer {
  const head = [
    "From: Ann <ann@sender.example>",
    "To: support@one-copy.example",
    "Subject: one big message",
    "MIME-Version: 1.0",
    'Content-Type: multipart/mixed; boundary="b0"',
    "",
    "--b0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    "See the attachment.",
    "--b0",
    'Content-Type: application/octet-stream; name="big.bin"',
    "Content-Transfer-Encoding: base64",
    'Content-Disposition: attachment; filename="big.bin"',
    "",
    "",
  ].join("\r\n");
  const base64 = randomBytes(7_500_000).toString("base64");
  const lines: string[] = [];
  for (let i = 0; i < base64.length; i += 76) lines.push(base64.slice(i, i + 76));
  const raw = Buffer.from(`${head}${lines.join("\r\n")}\r\n--b0--\r\n`);
  expect(raw.length).toBeGreaterThan(10_000_000);
  expect(raw.length).toBeLessThan(10 * 1024 * 1024);
  return raw;
}

/** CPU (utime + stime, ms) of the PostgreSQL backends serving `database` (their process title names it). */
function backendCpuMs(database: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!title.startsWith("postgres:") || !title.includes(` ${database} `)) continue;
    } catch {
      continue;
    }
    const stat = readStat(Number(entry));
    if (stat) out.set(stat.pid, stat.cpuMs);
  }
  return out;
}

const processCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

describe("one SMTP transaction is stored once", () => {
  let app: TestApp;
  let receiver: Receiver;
  let workers: RunningWorkers | undefined;
  let accountId: string;
  let databaseName: string;

  beforeAll(async () => {
    // Posting paused (no workers) until the stored bytes are measured.
    ({ app, receiver, accountId } = await startRoutedApp(
      { MAILROOM_WORKERS: "off", MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000", MAILROOM_WEBHOOK_TIMEOUT: "30s", MAILROOM_WEBHOOK_RETRY_SCHEDULE: "1s,1s" },
      { name: "One copy", domain: "one-copy.example" },
      "support@one-copy.example",
    ));
    databaseName = new URL(app.ctx.database.url).pathname.slice(1);
  }, 120_000);
  afterAll(async () => {
    await workers?.stop();
    await app?.stop();
    await receiver?.close();
  });

  const inboundBytes = async () =>
    Number(
      (
        await app.ctx.database.pool.query<{ n: string }>(
          `SELECT (SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree('inbound_messages'))
                  + pg_total_relation_size('inbound_attempts') AS n`,
        )
      ).rows[0]!.n,
    );

  it("stores a 10 MB message to 100 +tag recipients of one route as one raw copy, and posts it once (a retry with the same bytes), listing them all", async () => {
    const raw = bigMessage();
    const to = Array.from({ length: RECIPIENTS }, (_, i) => `support+${i + 1}@one-copy.example`);
    const bytesBefore = await inboundBytes();
    const backendsBefore = backendCpuMs(databaseName);
    const cpuBefore = processCpuMs();

    const address = getInboundAddress(app.ctx)!;
    const t = nodemailer.createTransport({ host: address.host, port: address.port, secure: false, ignoreTLS: true, socketTimeout: 30_000 });
    try {
      const info = await t.sendMail({ envelope: { from: "ann@sender.example", to }, raw });
      expect(info.response).toMatch(/^250 /);
      expect(info.accepted).toHaveLength(RECIPIENTS);
    } finally {
      t.close();
    }

    const rows = await app.ctx.database.pool.query<{ id: string; original_recipient: string; mailbox_hash: string; stored: number }>(
      "SELECT id, original_recipient, mailbox_hash, octet_length(raw) AS stored FROM inbound_messages WHERE account_id = $1",
      [accountId],
    );
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0]).toMatchObject({ original_recipient: to[0], mailbox_hash: "1", stored: raw.length });
    const stored = (await inboundBytes()) - bytesBefore;
    expect(stored).toBeLessThanOrEqual(1.2 * raw.length);

    // The receiver fails the first post: the retry posts the first attempt's bytes, its attachment put back from the raw copy.
    receiver.script.push({ status: 500, body: "down" }, { status: 200, body: "ok" });
    workers = await startWorkers(app.ctx, { workers: true, inbound: false, maintenance: false, inboundPost: { authResolver: noSenderDns } });
    const [post, retry] = await receiver.waitFor(2, 60_000);
    expect(retry!.body).toBe(post!.body);
    const json = post!.json as { MessageID: string; OriginalRecipient: string; MailboxHash: string; OriginalRecipients: { Email: string; MailboxHash: string }[]; Attachments: { Content: string }[] };
    expect(json.MessageID).toBe(rows.rows[0]!.id);
    expect(json.OriginalRecipient).toBe(to[0]);
    expect(json.MailboxHash).toBe("1");
    expect(json.OriginalRecipients).toEqual(to.map((Email, i) => ({ Email, MailboxHash: String(i + 1) })));
    expect(Buffer.from(json.Attachments[0]!.Content, "base64").length).toBe(7_500_000);
    // No third post comes.
    await sleep(1000);
    expect(receiver.requests).toHaveLength(2);
    // The kept JSON leaves the attachment's base64 out: the tables hold about one copy of the message, posts and attempts included.
    expect((await inboundBytes()) - bytesBefore).toBeLessThanOrEqual(1.2 * raw.length);

    const backendsAfter = backendCpuMs(databaseName);
    const backendCpu = [...backendsAfter].reduce((sum, [pid, ms]) => sum + ms - (backendsBefore.get(pid) ?? 0), 0);
    const cpu = processCpuMs() - cpuBefore + backendCpu;
    console.log(`one copy of a 10 MB message to ${RECIPIENTS} recipients: ${Math.round(cpu)} ms of CPU (target 3000, bound 8000)`);
    expect(cpu).toBeLessThanOrEqual(8000);
  }, 180_000);
});
