import fc from "fast-check";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestAccount } from "../support/fixtures";
import { waitFor } from "../support/processes";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Fuzzing, end to end through the sandbox MX: hostile input that the API
 * accepts never injects a header into the outgoing message, and a tracked
 * link never redirects anywhere but to a URL that was in the message.
 */
const runs = Number(process.env.FUZZ_DELIVERY_RUNS ?? 40);

describe("fuzzing what leaves the building", () => {
  let app: TestApp;
  let headers: Record<string, string>;

  beforeAll(async () => {
    app = await startTestApp();
    headers = bearer((await createTestAccount(app.ctx)).apiKey);
  });
  afterAll(async () => {
    await app?.stop();
  });

  async function send(body: unknown): Promise<string | undefined> {
    const res = await app.fetch("/api/v1/email", { method: "POST", headers, body: JSON.stringify(body) });
    expect(res.status).not.toBe(500);
    if (res.status !== 200) return undefined;
    return ((await res.json()) as { MessageID: string }).MessageID;
  }

  async function captured(messageId: string): Promise<Buffer> {
    return waitFor(`sandbox capture of ${messageId}`, async () => {
      const { rows } = await app.ctx.database.pool.query<{ raw: Buffer }>(
        "SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1 LIMIT 1",
        [messageId],
      );
      return rows[0]?.raw;
    }, 20_000);
  }

  // Mostly plausible values, some hostile: enough get accepted to exercise the builder.
  const injection = fc.oneof(
    { arbitrary: fc.string(), weight: 6 },
    fc.constantFrom("\r\nX-Injected: 1", "\nX-Injected: 1", "\rX-Injected: 1", "a\r\n\r\nX-Injected: 1", "\u2028X-Injected: 1", "=?utf-8?q?a=0D=0AX-Injected:_1?="),
    fc.tuple(fc.string({ maxLength: 5 }), fc.constantFrom("\r\n", "\n", "\r"), fc.constant("X-Injected: 1")).map((p) => p.join("")),
  );

  it("never lets a header into the message through names, subject, headers, tags or file names", async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(injection, injection, injection, injection, injection, async (name, subject, headerValue, tag, filename) => {
        const id = await send({
          From: { name, email: "sender@example.com" },
          To: [{ name, email: "rcpt@example.org" }],
          Subject: `s ${subject}`,
          ContentType: "Text",
          PlainContent: "body",
          Headers: { "X-Custom": headerValue },
          Tags: [`t${tag}`],
          Attachments: [{ Content: Buffer.from("x").toString("base64"), Filename: `f${filename}.txt`, Type: "text/plain" }],
        });
        if (!id) return; // refused: nothing left the building
        accepted++;
        const raw = await captured(id);
        const head = raw.toString("latin1").split(/\r\n\r\n/, 1)[0]!;
        expect(head).not.toMatch(/^X-Injected:/im);
        expect(head).not.toMatch(/^Bcc:/im);
        // Nothing injected into the MIME parts either.
        expect(raw.toString("latin1")).not.toMatch(/^X-Injected:/m);
      }),
      { numRuns: runs },
    );
    // The property is not vacuous: plenty of the hostile inputs were accepted and delivered.
    expect(accepted).toBeGreaterThan(runs / 8);
  }, 300_000);

  it("redirects a tracked link only to a URL that was in the message, and refuses tampered tokens", async () => {
    const href = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.constantFrom("https://example.org/a?b=1&c=2", "http://example.org/%2e%2e/x", "https://user:pw@example.org/", "javascript:alert(1)", "mailto:a@example.org", "/relative", "data:text/html,hi"),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(href, { minLength: 1, maxLength: 4 }), async (hrefs) => {
        const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
        const html = `<p>${hrefs.map((h, i) => `<a href="${escape(h)}">link ${i}</a>`).join(" ")}</p>`;
        const id = await send({ From: { email: "sender@example.com" }, To: [{ email: "clicker@example.org" }], Subject: "links", ContentType: "HTML", HTMLContent: html });
        expect(id).toBeDefined();
        const parsed = await simpleParser(await captured(id!));
        const tracked = [...String(parsed.html).matchAll(/href="([^"]*\/t\/c\/[^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
        const httpLinks = hrefs.filter((h) => /^https?:\/\//i.test(h));
        expect(tracked.length).toBeGreaterThanOrEqual(httpLinks.length);
        const allowed = new Set(hrefs.flatMap((h) => [h, safeHref(h)]));
        for (const link of tracked) {
          const res = await fetch(link, { redirect: "manual" });
          expect([301, 302, 303, 307, 308]).toContain(res.status);
          expect(allowed).toContain(res.headers.get("location"));
          // Tampering with the token never yields a redirect.
          const token = link.split("/t/c/")[1]!;
          const flipped = token.slice(0, -2) + (token.at(-2) === "A" ? "B" : "A") + token.at(-1);
          const tampered = await fetch(link.replace(token, flipped), { redirect: "manual" });
          expect(tampered.headers.get("location")).toBeNull();
          expect(tampered.status).toBeGreaterThanOrEqual(400);
        }
      }),
      { numRuns: Math.ceil(runs / 2) },
    );
  }, 300_000);
});

function safeHref(h: string): string {
  try {
    return new URL(h).href;
  } catch {
    return h;
  }
}
