import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../lib/domain/accounts/accounts";
import { openDatabase } from "../../lib/storage/database";
import { bearer } from "../support/fixtures";
import { startAppProcess, waitFor, type Proc } from "../support/processes";
import { freePort } from "../support/submission";
import { createTestDatabase } from "../support/test-database";

/**
 * The free-space reserve of the data directory (lib/storage/disk-space.ts,
 * docs/adr/0007), on a real app process: with MAILROOM_DISK_MIN_FREE above
 * what is free, POST /email answers 503 with code 507 and Retry-After, SMTP
 * submission 452 4.3.1 at MAIL FROM, the gauges and one error line say so,
 * and the rest of the API still answers; started again with a reserve below
 * what is free, both accept.
 */
const METRICS_TOKEN = "disk-threshold-metrics-token";
const body = JSON.stringify({ From: { email: "a@example.com" }, To: [{ email: "b@example.org" }], Subject: "space", ContentType: "Text", PlainContent: "hi" });

describe("the free-space reserve of the data directory", () => {
  let databaseUrl: string;
  let apiKey: string;
  let dataDir: string;
  let app: (Proc & { url: string }) | undefined;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    const database = openDatabase(databaseUrl, { max: 1 });
    apiKey = (await createAccount(database, { name: "Space", plan: "unlimited", domain: "example.com", verified: true })).apiKey;
    await database.close();
    dataDir = mkdtempSync(path.join(os.tmpdir(), "mailroom-disk-threshold-"));
  });
  afterAll(async () => {
    await app?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (minFree: string, warnFree: string) => {
    const smtpPort = await freePort();
    app = await startAppProcess({
      DATABASE_URL: databaseUrl,
      MAILROOM_DATA_DIR: dataDir, // set: watched even with DATABASE_URL
      MAILROOM_DISK_MIN_FREE: minFree,
      MAILROOM_DISK_WARN_FREE: warnFree,
      MAILROOM_DISK_CHECK_INTERVAL: "200ms",
      MAILROOM_METRICS_TOKEN: METRICS_TOKEN,
      MAILROOM_SUBMISSION_PORT: String(smtpPort),
      LOG_LEVEL: "info",
    });
    const proc = app;
    // The submission server listens a moment after HTTP answers.
    await waitFor("the submission port", () => new Promise<boolean>((resolve) => {
      const socket = net.connect(smtpPort, "127.0.0.1", () => { socket.destroy(); resolve(true); });
      socket.once("error", () => resolve(false));
    }), 30_000);
    const smtp = nodemailer.createTransport({ host: "127.0.0.1", port: smtpPort, secure: false, tls: { rejectUnauthorized: false }, auth: { user: "api", pass: apiKey } });
    // Its output from the start (the last 20,000 characters: enough for this short run).
    return { url: app.url, smtp, output: () => proc.output() };
  };
  const metric = async (url: string, name: string) => {
    const text = await (await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.split(" ")[1]);
  };

  it("refuses new messages below MAILROOM_DISK_MIN_FREE with 503, code 507 and Retry-After (SMTP: 452 4.3.1), and accepts with a lower reserve", async () => {
    const s = statfsSync(dataDir);
    const free = s.bavail * s.bsize;
    // A reserve above what is free (by 1 GB, whatever else writes meanwhile).
    const above = String(free + 1024 ** 3);
    const first = await start(above, above);

    const res = await fetch(`${first.url}/api/v1/email`, { method: "POST", headers: bearer(apiKey), body });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("30");
    expect(await res.json()).toEqual({ Errors: [{ Code: 507, Message: "Service unavailable: the server's disk is full" }] });
    // The rest of the API answers: reads, and the queue drains meanwhile.
    expect((await fetch(`${first.url}/api/v1/events`, { headers: bearer(apiKey) })).status).toBe(200);
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);

    const smtpError = await first.smtp
      .sendMail({ from: "a@example.com", to: "b@example.org", subject: "space", text: "hi" })
      .then(() => undefined, (err: { responseCode?: number; response?: string }) => err);
    expect(smtpError?.responseCode).toBe(452);
    expect(smtpError?.response).toContain("4.3.1 Mail system full");

    expect(await metric(first.url, "mailroom_data_dir_space_level")).toBe(2);
    const gaugeFree = (await metric(first.url, "mailroom_data_dir_free_bytes"))!;
    expect(Math.abs(gaugeFree - free)).toBeLessThan(512 * 1024 ** 2);
    expect(await metric(first.url, "mailroom_data_dir_min_free_bytes")).toBe(Number(above));

    // One error line when the level was first seen, not one per refusal; the 503s' access lines at warn.
    const lines = first.output().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { level: number; msg: string; status?: number });
    expect(lines.filter((l) => l.msg.startsWith("data directory almost full"))).toEqual([expect.objectContaining({ level: 50 })]);
    expect(lines.filter((l) => l.level >= 50)).toHaveLength(1);
    expect(lines.find((l) => l.msg === "request" && l.status === 503)?.level).toBe(40);
    await app!.kill();

    // A reserve below what is free: accepting again; still below the warning threshold (1 warn line, level 1).
    const second = await start("1MB", above);
    const ok = await fetch(`${second.url}/api/v1/email`, { method: "POST", headers: bearer(apiKey), body });
    expect(ok.status).toBe(200);
    const sent = await second.smtp.sendMail({ from: "a@example.com", to: "b@example.org", subject: "space", text: "hi" });
    expect(sent.response).toMatch(/^250 /);
    expect(await metric(second.url, "mailroom_data_dir_space_level")).toBe(1);
    await waitFor("the low-space warning", async () => second.output().includes("data directory low on space"), 5000);
  });
});
