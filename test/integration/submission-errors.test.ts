import { afterAll, beforeAll, describe, expect, it } from "vitest";
import nodemailer from "nodemailer";
import { createApiKey, revokeApiKey } from "../../lib/domain/accounts/api-keys";
import { setAccountLimits, setAccountStatus } from "../../lib/domain/accounts/accounts";
import { addSuppression } from "../../lib/domain/accounts/suppressions";
import { bearer, createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued } from "../support/delivery-helpers";
import { submissionEnv } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";

/** Every refusal of the submission server, each from a real nodemailer session over STARTTLS. */
describe("SMTP submission: error replies", () => {
  let app: TestApp;
  let port: number;
  beforeAll(async () => {
    const s = await submissionEnv();
    port = s.port;
    app = await startTestApp({ ...s.env, MAILROOM_SUBMISSION_AUTH_FAILURES_PER_MINUTE: "4" });
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
  });

  const send = async (pass: string | undefined, mail: nodemailer.SendMailOptions) => {
    const t = nodemailer.createTransport({
      host: "127.0.0.1",
      port,
      requireTLS: true,
      ...(pass !== undefined && { auth: { user: "apikey", pass } }),
      tls: { rejectUnauthorized: false },
    });
    try {
      return await t.sendMail(mail);
    } finally {
      t.close();
    }
  };
  const refusal = async (pass: string | undefined, mail: nodemailer.SendMailOptions) => {
    const err = (await send(pass, mail).then(
      () => undefined,
      (e: unknown) => e,
    )) as { response?: string } | undefined;
    expect(err, "the send should have been refused").toBeDefined();
    return err!.response ?? "";
  };
  const mail = (extra: nodemailer.SendMailOptions = {}): nodemailer.SendMailOptions => ({ from: "shop@example.com", to: "ann@example.org", subject: "x", text: "x", ...extra });

  it("535 5.7.8 for a wrong, revoked or suspended key; 530 5.7.0 without AUTH", async () => {
    const { apiKey, accountId } = await createTestAccount(app.ctx);
    expect(await refusal("mr_wrong", mail())).toMatch(/^535 5\.7\.8 /);
    expect(await refusal(undefined, mail())).toMatch(/^530 5\.7\.0 Authentication required/);

    const { key, apiKey: second } = await createApiKey(app.ctx.database, accountId);
    await revokeApiKey(app.ctx.database, key.id);
    expect(await refusal(second, mail())).toMatch(/^535 5\.7\.8 Authentication credentials invalid/);

    await setAccountStatus(app.ctx.database, accountId, "suspended");
    app.ctx.apiKeyAuth.results.clear();
    expect(await refusal(apiKey, mail())).toMatch(/^535 5\.7\.8 Authentication refused: the account of this API key is suspended/);
  });

  it("550 5.7.1 for an envelope sender or a header From outside the verified domains", async () => {
    const { apiKey } = await createTestAccount(app.ctx);
    expect(await refusal(apiKey, mail({ from: "x@unverified.example" }))).toMatch(/^550 5\.7\.1 Sender domain unverified\.example is not a verified sender domain/);
    expect(await refusal(apiKey, mail({ envelope: { from: "shop@example.com", to: ["ann@example.org"] }, from: "x@other.example" }))).toMatch(
      /^550 5\.7\.1 Sender domain other\.example is not a verified/,
    );
  });

  it("550 5.7.1 at RCPT for a suppressed recipient; 452 4.5.3 past 25 envelope recipients; 554 5.5.3 past 5 Bcc", async () => {
    const { apiKey, accountId } = await createTestAccount(app.ctx);
    await addSuppression(app.ctx.database, { accountId, email: "gone@example.org", reason: "hard-bounce" });
    expect(await refusal(apiKey, mail({ to: "gone@example.org" }))).toMatch(/^550 5\.7\.1 Recipient is on the suppression list of this account \(hard-bounce\)/);

    const many = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}@example.org`);
    const info = await send(apiKey, mail({ to: many(10, "t"), cc: many(10, "c"), bcc: many(6, "b") }));
    // The 26th is refused at RCPT; the message goes to the other 25 (10 To, 10 Cc, 5 Bcc), which SMTP clients decide.
    expect(info.rejected).toEqual(["b5@example.org"]);
    expect((info as { rejectedErrors?: { response?: string }[] }).rejectedErrors?.[0]?.response).toMatch(/^452 4\.5\.3 Too many recipients/);
    expect(info.response).toMatch(/^250 2\.0\.0 OK [0-9a-f-]{36}$/);

    expect(await refusal(apiKey, mail({ to: "t@example.org", bcc: many(6, "b") }))).toMatch(/^554 5\.5\.3 Too many BCC recipients: 6, at most 5/);
  });

  it("552 5.3.4 for a message over 10 MB (drained, not kept)", async () => {
    const { apiKey } = await createTestAccount(app.ctx);
    expect(await refusal(apiKey, mail({ text: "x".repeat(10 * 1024 * 1024 + 10) }))).toMatch(/^552 5\.3\.4 /);
  });

  it("451 4.7.1 with the wait past the rate limit, shared with POST /email for one key; 554 5.7.1 past the daily quota", async () => {
    // Limits count in fixed UTC minutes: start early in one, so that the four sends below share it.
    const second = new Date().getUTCSeconds();
    if (second > 45) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const { apiKey, accountId } = await createTestAccount(app.ctx);
    await setAccountLimits(app.ctx.database, accountId, { perMinute: 3, perHour: 1000, perDay: 1000 });
    app.ctx.apiKeyAuth.results.clear();
    const api = () =>
      app.fetch("/api/v1/email", {
        method: "POST",
        headers: bearer(apiKey),
        body: JSON.stringify({ From: { email: "shop@example.com" }, To: ["a@example.org"], Subject: "x", ContentType: "Text", PlainContent: "x" }),
      });
    expect((await api()).status).toBe(200);
    expect((await send(apiKey, mail({ to: ["a@example.org", "b@example.org"] }))).response).toMatch(/^250 /);
    expect(await refusal(apiKey, mail())).toMatch(/^451 4\.7\.1 Rate limit of this API key reached \(per minute\): try again in \d+ seconds/);
    expect((await api()).status).toBe(429);

    const other = await createTestAccount(app.ctx);
    await setAccountLimits(app.ctx.database, other.accountId, { perMinute: null, perHour: null, perDay: 1 });
    app.ctx.apiKeyAuth.results.clear();
    expect((await send(other.apiKey, mail())).response).toMatch(/^250 /);
    expect(await refusal(other.apiKey, mail())).toMatch(/^554 5\.7\.1 Daily quota of this API key reached: it resets in \d+ seconds/);
  });

  it("454 4.7.0 after repeated failed AUTH from one address, even with the right key", async () => {
    const { apiKey } = await createTestAccount(app.ctx);
    for (let i = 0; i < 4; i++) await refusal(`mr_guess${i}`, mail());
    expect(await refusal(apiKey, mail())).toMatch(/^454 4\.7\.0 Too many failed authentications/);
  });
});
