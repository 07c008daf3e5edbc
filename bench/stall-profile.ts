/**
 * `npx tsx bench/stall-profile.ts` (add `--cpu-prof --cpu-prof-dir=DIR` via
 * `node --cpu-prof --cpu-prof-dir=DIR --import tsx bench/stall-profile.ts`,
 * then `node bench/long-tasks.mjs DIR/*.cpuprofile`): where an accepted
 * 10 MB message holds the event loop (the stall budget, ADR 0310).
 *
 * Starts the server as test/integration/stall-budget.test.ts does (one
 * process: API, inline delivery workers, the sandbox MX; embedded PostgreSQL
 * in a temp dir, or BENCH_DATABASE_URL), then posts one message of each shape
 * and waits for its final event, with monitorEventLoopDelay (10 ms
 * resolution) enabled for that span. Shapes: a 10 MB HTML body, one
 * 7.5 MB attachment (10 MB of base64), 100 attachments of 75 KB, the
 * ordinary 10 MB control of the stall test, and a refused one (10 MB in
 * From.email). BENCH_SHAPE=<text> runs only the shapes whose name has it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { buildConfig } from "../lib/config";
import { createAccount } from "../lib/domain/accounts/accounts";
import { startServer } from "../server";

const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);

const base = () => ({
  From: { name: "Ann", email: "ann@example.com" },
  To: [{ name: "Bob", email: "bob@example.org" }],
  Subject: "Stall profile",
  ContentType: "HTML",
  HTMLContent: '<p>Hello <a href="https://example.org/x">x</a></p>',
  PlainContent: "Hello",
});

const b64 = (bytes: number, seed: number) => {
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) buf[i] = (i * 31 + seed) & 0xff;
  return buf.toString("base64");
};

const SHAPES: Record<string, () => unknown> = {
  "control: ordinary 10 MB HTML": () => ({
    ...base(),
    HTMLContent: `<p>${"Dear customer, here is your monthly statement. ".repeat(200_000)}</p><p><a href="https://example.org/account">Account</a></p>`,
  }),
  "10 MB HTML, 10,000 links": () => ({
    ...base(),
    HTMLContent: Array.from({ length: 10_000 }, (_, i) => `<p><a href="https://example.org/${i}?a=1&amp;b=${i}">link ${i}</a></p>`).join("\n") + `<p>${"lorem ipsum ".repeat(800_000)}</p>`,
  }),
  "one 7.5 MB attachment": () => ({ ...base(), Attachments: [{ Content: b64(7_500_000, 1), Filename: "big.bin" }] }),
  "refused: 10 MB of quotes in From.email": () => ({ ...base(), From: { name: "Ann", email: `a${"'".repeat(10_000_000)}b` } }),
  "100 attachments of 75 KB": () => ({
    ...base(),
    Attachments: Array.from({ length: 100 }, (_, i) => ({ Content: b64(75_000, i), Filename: `f${i}.bin` })),
  }),
};

/**
 * Long turns of the event loop: a 1 ms timer that notes every gap over
 * BENCH_LONG_MS (default 20) between its runs, as [start, end] in the
 * monotonic µs of V8's CPU profiles, so bench/long-tasks.mjs can name what
 * ran in each (BENCH_LONG_FILE, default /tmp/mailroom-long-turns.json).
 */
function watchLongTurns(): { shape: string; start: number; end: number }[] {
  const turns: { shape: string; start: number; end: number }[] = [];
  const min = Number(process.env.BENCH_LONG_MS ?? 20) * 1000;
  const us = () => Number(process.hrtime.bigint() / 1000n);
  let last = us();
  const tick = () => {
    const now = us();
    if (now - last > min + 1000) turns.push({ shape: currentShape, start: last, end: now });
    last = now;
    setTimeout(tick, 1).unref();
  };
  setTimeout(tick, 1).unref();
  return turns;
}
let currentShape = "start";

async function main() {
  const turns = watchLongTurns();
  const config = buildConfig({
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    MAILROOM_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "mailroom-bench-stall-")),
    MAILROOM_EMBEDDED_PG_PORT: "0",
    PORT: "0",
    MAILROOM_INBOUND_PORT: "0",
    MAILROOM_SANDBOX_PORT: "0",
    MAILROOM_QUIET_START: "true",
    LOG_LEVEL: "warn",
  });
  const app = await startServer({ config, dashboard: false });
  const account = await createAccount(app.ctx.database, { name: "Bench", plan: "unlimited", domain: "example.com", verified: true });
  const headers = { Authorization: `Bearer ${account.apiKey}`, "Content-Type": "application/json" };
  const settled = async (id: string) => {
    for (;;) {
      const { rows } = await app.ctx.database.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM message_recipients WHERE message_id = $1 AND status IN ('queued', 'deferred')",
        [id],
      );
      if (rows[0]!.n === 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const results: { shape: string; run: number; MB: string; status: number; "max delay (ms)": number; "p99 (ms)": number; "total (ms)": number }[] = [];
  for (let run = 0; run < REPEAT; run++) {
    for (const [shape, make] of Object.entries(SHAPES).filter(([name]) => name.includes(process.env.BENCH_SHAPE ?? ""))) {
      currentShape = `${shape} #${run}`;
      const body = new Blob([JSON.stringify(make())]);
      await new Promise((r) => setTimeout(r, 200));
      const h = monitorEventLoopDelay({ resolution: 10 });
      const t0 = performance.now();
      h.enable();
      const res = await fetch(`${app.url}/api/v1/email`, { method: "POST", headers, body });
      const json = (await res.json()) as { MessageID?: string };
      if (json.MessageID) await settled(json.MessageID);
      h.disable();
      results.push({
        shape,
        run,
        MB: (body.size / 1e6).toFixed(1),
        status: res.status,
        "max delay (ms)": Math.round(h.max / 1e6),
        "p99 (ms)": Math.round(h.percentile(99) / 1e6),
        "total (ms)": Math.round(performance.now() - t0),
      });
    }
  }
  console.table(results);
  currentShape = "stop";
  writeFileSync(process.env.BENCH_LONG_FILE ?? "/tmp/mailroom-long-turns.json", JSON.stringify(turns));
  const worst = new Map<string, number>();
  for (const t of turns) worst.set(t.shape, Math.max(worst.get(t.shape) ?? 0, Math.round((t.end - t.start) / 1000)));
  console.log("longest turn per shape (ms):", Object.fromEntries(worst));
  await app.stop();
  process.exit(0);
}

void main();
