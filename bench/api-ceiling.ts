/**
 * Child process of bench/api.ts: the ceiling. A bare node:http server that
 * parses the same body and commits the same rows as POST /email (message,
 * recipient, accepted event, queued pg-boss job) in one transaction on the
 * same database, with no validation, auth, limits or framework.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import pg from "pg";
import { startQueue } from "../lib/queue/boss";

const send = (msg: unknown) => process.send!(msg);

async function main() {
  const url = process.env.BENCH_CEILING_DATABASE_URL!;
  const accountId = process.env.BENCH_CEILING_ACCOUNT!;
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  const boss = await startQueue(url);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const client = await pool.connect();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const id = randomUUID();
        const now = Math.floor(Date.now() / 1000);
        const to = body.To[0];
        const headers = { MessageId: id, From: [[body.From.name ?? "", body.From.email]], ReplyTo: [], To: [[to.name ?? "", to.email]], Cc: [], Bcc: [], Subject: body.Subject };
        await client.query("BEGIN");
        await client.query(
          `INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, size) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [id, accountId, body.From.email, "example.com", body.Subject, JSON.stringify(headers), JSON.stringify(body), 3000],
        );
        const { rows } = await client.query<{ id: number }>(
          `INSERT INTO message_recipients (message_id, account_id, email, name, kind) VALUES ($1, $2, $3, $4, 'to') RETURNING id`,
          [id, accountId, to.email, to.name ?? ""],
        );
        await client.query(`INSERT INTO events (account_id, message_id, type, logged_at, recipient) VALUES ($1, $2, 'accepted', $3, $4)`, [
          accountId,
          id,
          now,
          to.email,
        ]);
        await boss.send("deliver", { messages: [{ messageId: id, recipientIds: [rows[0]!.id] }] }, { db: { executeSql: (text: string, values: unknown[]) => client.query(text, values) } });
        await client.query("COMMIT");
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ MessageID: id }));
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        res.writeHead(500);
        res.end(String(err));
      } finally {
        client.release();
      }
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  process.on("message", async (msg: { type: string }) => {
    if (msg.type === "rss") send({ type: "rss", rss: process.memoryUsage().rss });
    if (msg.type === "cpu") {
      const u = process.cpuUsage();
      send({ type: "cpu", micros: u.user + u.system });
    }
    if (msg.type === "stop") {
      server.close();
      server.closeAllConnections();
      await boss.stop({ graceful: false, wait: true });
      await pool.end();
      send({ type: "stopped" });
      process.exit(0);
    }
  });
  send({ type: "ready", url: `http://127.0.0.1:${port}` });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
