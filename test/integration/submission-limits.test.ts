import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued } from "../support/delivery-helpers";
import { externalAddress, rawSession } from "../support/smtp-raw";
import { submissionEnv } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";

describe("SMTP submission: per-connection limits", () => {
  let app: TestApp;
  let port: number;
  let apiKey: string;
  beforeAll(async () => {
    const s = await submissionEnv();
    port = s.port;
    app = await startTestApp({ ...s.env, MAILROOM_SUBMISSION_HOST: "0.0.0.0", MAILROOM_SUBMISSION_MAX_CLIENTS: "3", MAILROOM_SUBMISSION_IDLE_TIMEOUT: "1s" });
    ({ apiKey } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  it("offers no AUTH before TLS to a non-loopback address, so the key is never sent in clear, and accepts it after STARTTLS", async () => {
    const host = externalAddress();
    // nodemailer's debug log: what it writes to the socket is logged with tnx "client".
    const written: string[] = [];
    const record = (meta: { tnx?: string }, ...parts: unknown[]) => void written.push(`${meta?.tnx === "client" ? "C: " : ""}${parts.map(String).join(" ")}`);
    const logger = { level: () => {}, trace: record, debug: record, info: record, warn: record, error: record, fatal: record };
    const plain = nodemailer.createTransport({ host, port, ignoreTLS: true, auth: { user: "apikey", pass: apiKey }, logger, debug: true });
    const err = (await plain.sendMail({ from: "shop@example.com", to: "a@example.org", subject: "x", text: "x" }).catch((e: unknown) => e)) as { response?: string };
    plain.close();
    expect(err.response).toMatch(/^530 5\.7\.0 Authentication required/);
    const sent = written.filter((line) => line.startsWith("C: ")).join("\n");
    expect(sent).toMatch(/^C: MAIL FROM/m);
    expect(sent).not.toMatch(/AUTH/);
    expect(written.join("\n")).not.toContain(Buffer.from(`\0apikey\0${apiKey}`).toString("base64").slice(0, 16));
    const tls = nodemailer.createTransport({ host, port, requireTLS: true, auth: { user: "apikey", pass: apiKey }, tls: { rejectUnauthorized: false } });
    const info = await tls.sendMail({ from: "shop@example.com", to: "a@example.org", subject: "x", text: "x" });
    tls.close();
    expect(info.response).toMatch(/^250 2\.0\.0 OK /);
  });

  it("closes a session idle past MAILROOM_SUBMISSION_IDLE_TIMEOUT with 421", async () => {
    const s = rawSession(port);
    await s.waitFor(/^220 /m);
    await s.waitFor(/^421 Timeout/m, 5000);
    s.end();
  });

  it("closes a session after 10 commands without AUTH with 421", async () => {
    const s = rawSession(port);
    await s.waitFor(/^220 /m);
    s.send("EHLO client.example");
    for (let i = 0; i < 10; i++) s.send("NOOP");
    expect(await s.waitFor(/^421 .*unauthenticated/m)).toMatch(/421/);
    s.end();
  });

  it("answers 421 past MAILROOM_SUBMISSION_MAX_CLIENTS concurrent sessions", async () => {
    const open = [rawSession(port), rawSession(port), rawSession(port)];
    for (const s of open) await s.waitFor(/^220 /m);
    const extra = rawSession(port);
    expect(await extra.waitFor(/^421 /m, 800)).toMatch(/^421 .*Too many connected clients/m);
    for (const s of [...open, extra]) s.end();
  });
});
