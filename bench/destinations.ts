/**
 * `npm run bench:destinations`: ten destinations on the fake internet
 * (test/support/fake-dns.ts, provider-peers.ts; docs/BENCHMARKS.md).
 *
 * Seven healthy destinations (peers that accept at once), one that answers
 * `421 4.7.28` past 60 messages a minute, one that tarpits (RCPT never
 * answered) and one that answers a block-list `550 5.7.1` (suspended on its
 * first reply). Each run: Mailroom in MX mode (embedded PostgreSQL in a temp
 * dir), its lookups on the rig's DNS, BENCH_MESSAGES (default 2100) messages
 * to the seven healthy domains accepted with no worker running (and, in the
 * run with the three, BENCH_BAD_MESSAGES, default 200, to each of them,
 * accepted first), then the deliver worker starts in this process; printed:
 * delivered messages per second to the healthy seven, from the worker's start
 * to their last delivery. Once with the three, once without; then the ratio.
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildConfig } from "../lib/config";
import { createAccount } from "../lib/domain/accounts/accounts";
import { authenticateApiKey } from "../lib/domain/accounts/api-keys";
import { sendEmail } from "../lib/domain/sending/send-email";
import { startWorkers } from "../lib/workers/start-workers";
import { startServer } from "../server";
import { startFakeDns } from "../test/support/fake-dns";
import { startProviderPeers, type PeerBehaviour, type ProviderPeer } from "../test/support/provider-peers";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2100);
const BAD_MESSAGES = Number(process.env.BENCH_BAD_MESSAGES ?? 200);
const CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? "64";
const HEALTHY = 7;
/** BENCH_BAD (default all three): which of the bad destinations get mail, to see what each one costs. */
const BAD = (process.env.BENCH_BAD ?? "throttling,tarpit,blocked").split(",").filter((b) => ["throttling", "tarpit", "blocked"].includes(b));

interface Rig {
  dnsAddress: string;
  port: number;
  healthy: ProviderPeer[];
  stop(): Promise<void>;
}

async function startRig(): Promise<Rig> {
  const dns = await startFakeDns();
  const behaviours: PeerBehaviour[] = [
    ...Array.from({ length: HEALTHY }, (): PeerBehaviour => ({ kind: "accept" })),
    { kind: "rate", perWindow: 60 },
    { kind: "tarpit", silent: () => true },
    { kind: "block-list" },
  ];
  const peers = await startProviderPeers(behaviours, 50);
  const names = [...Array.from({ length: HEALTHY }, (_, i) => `d${i}`), "throttling", "tarpit", "blocked"];
  names.forEach((name, i) => dns.mx(`${name}.bench.test`, [{ name: `mx.${name}.bench.test`, address: peers[i]!.host }]));
  return {
    dnsAddress: dns.address,
    port: peers[0]!.port,
    healthy: peers.slice(0, HEALTHY),
    async stop() {
      await Promise.all(peers.map((p) => p.stop()));
      await dns.stop();
    },
  };
}

async function run(rig: Rig, withBad: boolean, messages = MESSAGES): Promise<number> {
  const config = buildConfig({
    ...process.env,
    NODE_ENV: "production",
    MAILROOM_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "mailroom-bench-destinations-")),
    MAILROOM_EMBEDDED_PG_PORT: "0",
    PORT: "0",
    MAILROOM_INBOUND_PORT: "0",
    MAILROOM_SUBMISSION_PORT: "0",
    MAILROOM_SUBMISSION_TLS_PORT: "0",
    MAILROOM_WORKERS: "off",
    MAILROOM_MAX_BACKLOG: "0",
    MAILROOM_DELIVERY: "mx",
    MAILROOM_ALLOW_PRIVATE_MX: "true",
    MAILROOM_DNS_SERVERS: rig.dnsAddress,
    MAILROOM_MX_PORT: String(rig.port),
    MAILROOM_WORKER_CONCURRENCY: CONCURRENCY,
    // The tarpit's limits as the tarpit tests set them (test/integration/delivery-tarpit.test.ts).
    MAILROOM_MX_RCPT_TIMEOUT: "8s",
    MAILROOM_MX_STALL_AFTER: "1s",
    MAILROOM_DELIVERY_RETRY_SCHEDULE: "10s",
    MAILROOM_PUBLIC_URL: "https://mail.bench.example",
    MAILROOM_QUIET_START: "true",
    LOG_LEVEL: "error",
  });
  const app = await startServer({ config, dashboard: false });
  try {
    const account = await createAccount(app.ctx.database, { name: "Bench", plan: "unlimited", domain: "bench.example", verified: true });
    const auth = await authenticateApiKey(app.ctx.database, `Bearer ${account.apiKey}`);
    if (!auth.ok) throw new Error("bench key does not authenticate");
    const accept = async (to: string) => {
      const result = await sendEmail(app.ctx, auth.key, {
        From: { email: "news@bench.example" },
        To: [{ email: to }],
        Subject: "Destinations benchmark",
        ContentType: "Text",
        PlainContent: "Hello. Lorem ipsum dolor sit amet. ".repeat(20),
      });
      if (!result.ok) throw new Error(`sendEmail refused: ${JSON.stringify(result.errors)}`);
    };
    if (withBad) for (let i = 0; i < BAD_MESSAGES; i++) for (const bad of BAD) await accept(`r${i}@${bad}.bench.test`);
    for (let i = 0; i < messages; i++) await accept(`r${i}@d${i % HEALTHY}.bench.test`);
    const before = rig.healthy.reduce((n, p) => n + p.delivered.length, 0);
    const started = Date.now();
    const workers = await startWorkers(app.ctx, { workers: true, inbound: false, notifications: false, maintenance: false });
    try {
      while (rig.healthy.reduce((n, p) => n + p.delivered.length, 0) - before < messages) {
        if (Date.now() - started > 600_000) throw new Error("the healthy destinations did not get their mail within 10 minutes");
        await new Promise((r) => setTimeout(r, 50));
      }
      if (process.env.BENCH_TIMELINE) {
        const ats = rig.healthy.flatMap((p) => p.delivered.map((d) => d.at)).filter((t) => t >= started).sort((a, b) => a - b);
        const buckets = new Map<number, number>();
        for (const t of ats) buckets.set(Math.floor((t - started) / 250), (buckets.get(Math.floor((t - started) / 250)) ?? 0) + 1);
        console.log("timeline (per 250 ms):", [...buckets].map(([b, n]) => `${b * 250}:${n}`).join(" "));
      }
      return messages / ((Date.now() - started) / 1000);
    } finally {
      await workers.stop();
    }
  } finally {
    await app.stop();
  }
}

const rig = await startRig();
try {
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")} (a shared machine makes these figures noisy)`);
  // A first run warms the code paths (JIT, the embedded server's files), not counted.
  await run(rig, false, Math.min(300, MESSAGES));
  const alone = await run(rig, false);
  console.log(`healthy seven alone:               ${alone.toFixed(1)} delivered/s (${MESSAGES} messages)`);
  const mixed = await run(rig, true);
  console.log(`with ${BAD.join(", ")}: ${mixed.toFixed(1)} delivered/s (${MESSAGES} messages, ${BAD_MESSAGES} to each of them)`);
  console.log(`ratio: ${(mixed / alone).toFixed(3)} (target: at least 0.90)`);
} finally {
  await rig.stop();
}
process.exit(0);
