import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { eventsOf, expectNoRecipientLeftQueued, waitForEvent } from "../support/delivery-helpers";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { submissionEnv, verifyDkim } from "../support/submission";
import { startTestApp, type TestApp } from "../support/test-app";

const run = promisify(execFile);

// Python's smtplib, spawned: STARTTLS, login, then MAIL/RCPT/DATA by hand to read DATA's reply.
const PYTHON = `
import json, os, smtplib, ssl, sys
from email.message import EmailMessage
a = json.loads(sys.argv[1])
m = EmailMessage()
m["From"] = a["from"]
if a.get("to"): m["To"] = a["to"]
m["Subject"] = a["subject"]
m.set_content(a["text"])
if a.get("html"):
    m.add_alternative(a["html"], subtype="html")
    html = m.get_payload()[1]
    html.add_related(bytes.fromhex(a["png"]), "image", "png", cid="<logo@py>", filename="logo.png")
    m.add_attachment(bytes.fromhex(a["pdf"]), maintype="application", subtype="pdf", filename="report.pdf")
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
s = smtplib.SMTP("127.0.0.1", a["port"], timeout=30)
s.starttls(context=ctx)
s.login("apikey", a["key"])
s.mail(a["envelope_from"])
for r in a["rcpt"]: s.rcpt(r)
code, msg = s.data(m.as_bytes())
print(code, msg.decode())
s.quit()
`;

describe("SMTP submission: swaks and Python smtplib", () => {
  let relay: SmtpSink;
  let app: TestApp;
  let apiKey: string;
  let accountId: string;
  let ports: { port: number; tlsPort: number };
  beforeAll(async () => {
    relay = await startSmtpSink();
    const s = await submissionEnv();
    ports = s;
    app = await startTestApp({ MAILROOM_DELIVERY: "relay", SMTP_RELAY_URL: `smtp://127.0.0.1:${relay.port}`, ...s.env });
    ({ apiKey, accountId } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await app?.stop();
    await relay?.stop();
  });

  const copyTo = (r: string) => relay.received.filter((m) => m.rcptTo.includes(r)).at(-1)!;

  it("swaks over implicit TLS: 8-bit UTF-8 subject and body arrive intact, DKIM verified", async () => {
    const { stdout } = await run("swaks", [
      "--server", `127.0.0.1:${ports.tlsPort}`, "--tlsc", "--auth", "PLAIN", "--auth-user", "apikey", "--auth-password", apiKey,
      "--from", "shop@example.com", "--to", "utf8@example.org",
      "--header", "Subject: Grüße aus Köln ✓", "--body", "Héllo wörld — ünïcödé\n",
    ]);
    const id = /<~ +250 2\.0\.0 OK ([0-9a-f-]{36})/.exec(stdout)?.[1];
    expect(id, stdout).toBeDefined();
    await waitForEvent(app.ctx, id!, "delivered", "utf8@example.org");
    const copy = copyTo("utf8@example.org");
    expect(await verifyDkim(app.ctx, accountId, copy.raw)).toBe("pass");
    const parsed = await simpleParser(copy.raw);
    expect(parsed.subject).toBe("Grüße aus Köln ✓");
    expect(parsed.text).toContain("Héllo wörld — ünïcödé");
  });

  it("swaks over STARTTLS with AUTH LOGIN: Bcc-only (recipients in no header)", async () => {
    const { stdout } = await run("swaks", [
      "--server", `127.0.0.1:${ports.port}`, "--tls", "--auth", "LOGIN", "--auth-user", "anything", "--auth-password", apiKey,
      "--from", "shop@example.com", "--to", "b1@example.org,b2@example.net", "--header", "To: undisclosed-recipients:;", "--header", "Subject: hidden",
    ]);
    const id = /<~ +250 2\.0\.0 OK ([0-9a-f-]{36})/.exec(stdout)![1]!;
    for (const r of ["b1@example.org", "b2@example.net"]) await waitForEvent(app.ctx, id, "delivered", r);
    const { rows } = await app.ctx.database.pool.query("SELECT kind FROM message_recipients WHERE message_id = $1", [id]);
    expect(rows.map((r) => r.kind)).toEqual(["bcc", "bcc"]);
  });

  it("swaks shows each refusal as the client sees it", async () => {
    const bad = await run("swaks", ["--server", `127.0.0.1:${ports.port}`, "--tls", "--auth", "PLAIN", "--auth-user", "x", "--auth-password", "mr_nope", "--from", "shop@example.com", "--to", "a@example.org"]).catch((e: { stdout: string }) => e);
    expect(bad.stdout).toMatch(/<~\* +535 5\.7\.8 /);
  });

  it("Python smtplib: HTML with an inline image and a PDF reaches the relay byte-identical, with the events of POST /email", async () => {
    const pdf = randomBytes(40_000);
    const png = randomBytes(1500);
    const args = {
      port: ports.port, key: apiKey, from: "Shop <shop@example.com>", to: "Ann <ann@example.org>", subject: "Rapport été", text: "Voir le rapport",
      html: '<p>Voir <a href="https://example.org/r">le rapport</a><img src="cid:logo@py"></p>', png: png.toString("hex"), pdf: pdf.toString("hex"),
      envelope_from: "shop@example.com", rcpt: ["ann@example.org", "secret@example.org"],
    };
    const { stdout } = await run("python3", ["-c", PYTHON, JSON.stringify(args)]);
    const id = /^250 2\.0\.0 OK ([0-9a-f-]{36})$/m.exec(stdout)?.[1];
    expect(id, stdout).toBeDefined();
    for (const r of ["ann@example.org", "secret@example.org"]) await waitForEvent(app.ctx, id!, "delivered", r);
    expect((await eventsOf(app.ctx, id!)).map((e) => `${e.type} ${e.recipient}`).sort()).toEqual([
      "accepted ann@example.org", "accepted secret@example.org", "delivered ann@example.org", "delivered secret@example.org",
    ]);
    const { rows } = await app.ctx.database.pool.query("SELECT email, kind FROM message_recipients WHERE message_id = $1 ORDER BY id", [id]);
    expect(rows).toEqual([{ email: "ann@example.org", kind: "to" }, { email: "secret@example.org", kind: "bcc" }]);
    for (const r of ["ann@example.org", "secret@example.org"]) {
      const copy = copyTo(r);
      expect(await verifyDkim(app.ctx, accountId, copy.raw)).toBe("pass");
      const parsed = await simpleParser(copy.raw);
      expect(parsed.subject).toBe("Rapport été");
      expect(parsed.attachments.find((a) => a.filename === "report.pdf")!.content.equals(pdf)).toBe(true);
      const logo = parsed.attachments.find((a) => a.contentId === "<logo@py>")!;
      expect(logo.content.equals(png)).toBe(true);
      expect(parsed.html).toContain("/t/o/");
    }
  });
});
