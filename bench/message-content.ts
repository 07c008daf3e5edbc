/**
 * npm run bench:content: what keeping a message's content costs (docs/adr/0518,
 * docs/BENCHMARKS.md "What was sent"). Inserts BENCH_MESSAGES messages (default
 * 2,000) of each of three shapes into a fresh database (the embedded
 * PostgreSQL, or BENCH_DATABASE_URL) and prints, per shape, the JSON the
 * content is as text and what messages.content takes on disk
 * (pg_column_size: after PostgreSQL's TOAST compression), per message.
 */
import os from "node:os";
import { randomUUID } from "node:crypto";
import { migrate } from "../lib/storage/migrate";
import { openBenchDatabase } from "./bench-database";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2000);

/** A transactional receipt of about `rows` order lines: HTML with a table and inline styles, and its text part. */
function receipt(n: number, rows: number) {
  const lines = Array.from({ length: rows }, (_, i) => `<tr><td style="padding:4px 8px;border-bottom:1px solid #eee">Item ${i + 1} of order ${n}</td><td style="text-align:right">$${(i * 3.17 + n % 97).toFixed(2)}</td></tr>`);
  const html = `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#222"><h1>Thanks for your order #${n}</h1><p>Hi customer${n}, here is your receipt.</p><table style="width:100%;border-collapse:collapse">${lines.join("")}</table><p><a href="https://shop.example/orders/${n}?utm_source=email&utm_medium=receipt">View your order</a> · <a href="https://shop.example/help">Help</a></p></body></html>`;
  const text = `Thanks for your order #${n}\n\n${Array.from({ length: rows }, (_, i) => `Item ${i + 1} of order ${n}: $${(i * 3.17 + n % 97).toFixed(2)}`).join("\n")}\n\nView your order: https://shop.example/orders/${n}`;
  return { html, text };
}

const SHAPES: { name: string; content: (n: number) => Record<string, unknown> }[] = [
  { name: "password reset (~1 KB HTML)", content: (n) => ({ html: `<p>Hi, reset your password: <a href="https://app.example/reset/${randomUUID()}">reset</a>. It expires in an hour.</p><p>If you did not ask, ignore this email (request ${n}).</p>`, text: `Reset your password: https://app.example/reset/${n}` }) },
  { name: "receipt (~8 KB HTML + text)", content: (n) => receipt(n, 40) },
  { name: "receipt with a 100 KB PDF attachment", content: (n) => ({ ...receipt(n, 40), attachments: [{ content: randomBytesBase64(100 * 1024), filename: "receipt.pdf", type: "application/pdf", disposition: "attachment" }] }) },
];

function randomBytesBase64(size: number): string {
  // PDF-like: partly compressible (repeated structure) and partly not (random streams).
  const buf = Buffer.alloc(size);
  for (let i = 0; i < size; i++) buf[i] = i % 3 === 0 ? 32 : Math.floor(Math.random() * 256);
  return buf.toString("base64");
}

async function main() {
  const bench = await openBenchDatabase("content", { max: 2 });
  const { database } = bench;
  const pool = database.pool;
  try {
    await migrate(pool);
    const account = randomUUID();
    await pool.query("INSERT INTO accounts (id, name, plan, webhook_signing_key) VALUES ($1, 'bench', 'free', 'k')", [account]);
    console.log(`${MESSAGES} messages per shape; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    for (const [s, shape] of SHAPES.entries()) {
      for (let from = 0; from < MESSAGES; from += 200) {
        const batch = Array.from({ length: Math.min(200, MESSAGES - from) }, (_, i) => {
          const n = s * 1_000_000 + from + i;
          const content = { from: { name: "Shop", email: "shop@example.com" }, to: [{ name: "", email: `customer${n}@example.net` }], cc: [], bcc: [], replyTo: [], subject: `Your order #${n}`, contentType: "HTML", headers: [], tags: [shape.name], ...shape.content(n) };
          return { id: randomUUID(), content };
        });
        await pool.query(
          `INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, tags)
           SELECT b.id, $1, 'shop@example.com', 'example.com', b.content->>'subject', '{}'::jsonb, b.content, ARRAY[$2]
             FROM jsonb_to_recordset($3::jsonb) AS b(id uuid, content jsonb)`,
          [account, shape.name, JSON.stringify(batch)],
        );
      }
      const { rows } = await pool.query<{ text_bytes: number; stored_bytes: number }>(
        "SELECT avg(octet_length(content::text))::int AS text_bytes, avg(pg_column_size(content))::int AS stored_bytes FROM messages WHERE tags = ARRAY[$1]",
        [shape.name],
      );
      const r = rows[0]!;
      console.log(`${shape.name}: content ${r.text_bytes} bytes as JSON text, ${r.stored_bytes} bytes stored (${((100 * r.stored_bytes) / r.text_bytes).toFixed(0)}%)`);
    }
    const { rows } = await pool.query<{ total: string }>(
      "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS total FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'messages'::regclass",
    );
    console.log(`messages' day tables with their TOAST and indexes: ${rows[0]!.total} for ${SHAPES.length * MESSAGES} messages`);
  } finally {
    await bench.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
