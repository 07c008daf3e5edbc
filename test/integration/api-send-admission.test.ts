import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorEnvelopeSchema } from "../../lib/contract/errors";
import type { CreatedAccount } from "../../lib/domain/accounts/accounts";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The per-account line of the sending routes (docs/adr/0133), through the
 * real server: the attacker's line is filled by requests whose bodies have
 * not arrived (their headers only, on raw sockets), so it stays full for as
 * long as the test wants. Then 100 more of its requests at once are 429 in
 * the envelope with Retry-After, answered before their bodies are sent,
 * while another account's requests all succeed; once the held bodies arrive
 * every held request is served, in its turn.
 */

const IN_PROGRESS = 2;
const WAITING = 3;

const message = (to: string) => ({ From: { email: "shop@example.com" }, To: [{ email: to }], Subject: "Hi", ContentType: "Text", PlainContent: "Hello." });

/** A raw POST whose body is sent only when the test says so (`sendBody`): what the server answered, as text, once it closes. */
function heldRequest(port: number, key: string, pathname: string, body: string) {
  const socket = net.connect(port, "127.0.0.1");
  let received = "";
  socket.setEncoding("latin1").on("data", (d: string) => (received += d));
  const closed = new Promise<void>((r) => socket.once("close", () => r()));
  socket.on("error", () => {});
  const head =
    `POST ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
  socket.write(head);
  return {
    /** Node answers `100 Continue` just before it hands the request to the app: the request is in the app's hands. */
    continued: () => until(() => received.includes(" 100 Continue")),
    sendBody: () => socket.write(body),
    received: () => received,
    closed,
    destroy: () => socket.destroy(),
  };
}

/** Polls `condition` every 10 ms until it holds; fails after `ms`. */
async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The final status and JSON body of a raw HTTP/1.1 answer (after any 100 Continue). */
function finalAnswer(raw: string): { status: number; headers: string; json: unknown } {
  const final = raw.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, "");
  const [head, ...rest] = final.split("\r\n\r\n");
  return { status: Number(head!.split(" ")[1]), headers: head!, json: JSON.parse(rest.join("\r\n\r\n")) };
}

describe("the per-account line of the sending routes", () => {
  let app: TestApp;
  let attacker: CreatedAccount;
  let other: CreatedAccount;
  let port: number;

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_API_SENDS_PER_ACCOUNT: String(IN_PROGRESS), MAILROOM_API_SENDS_WAITING_PER_ACCOUNT: String(WAITING) });
    attacker = await createTestAccount(app.ctx, { name: "Attacker" });
    other = await createTestAccount(app.ctx, { name: "Other" });
    port = Number(new URL(app.url).port);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const send = (key: string, body: unknown, pathname = "/api/v1/email") => app.fetch(pathname, { method: "POST", headers: bearer(key), body: JSON.stringify(body) });

  it("past a full line: 429 with Retry-After before the body is read, another account unaffected, the held requests served in turn", async () => {
    // Warm: both keys known to the process.
    expect((await send(attacker.apiKey, message("warm@example.org"))).status).toBe(200);
    expect((await send(other.apiKey, message("warm@example.org"))).status).toBe(200);

    // The line filled, one request at a time, by requests whose bodies are not sent: IN_PROGRESS reading, WAITING waiting.
    const held = [];
    for (let i = 0; i < IN_PROGRESS + WAITING; i++) {
      const h = heldRequest(port, attacker.apiKey, "/api/v1/email", JSON.stringify(message(`held${i}@example.org`)));
      await h.continued();
      held.push(h);
    }
    try {
      // One more whose body never comes: refused at once, the connection closed, nothing of its body awaited.
      const unsent = heldRequest(port, attacker.apiKey, "/api/v1/email", JSON.stringify(message("never@example.org")));
      await Promise.race([unsent.closed, new Promise((_, reject) => setTimeout(() => reject(new Error("a request past the line was not answered")), 10_000))]);
      const refusedAtOnce = finalAnswer(unsent.received());
      expect(refusedAtOnce.status).toBe(429);
      expect(refusedAtOnce.headers).toMatch(/\r\nRetry-After: 1\r\n/i);
      expect(errorEnvelopeSchema.parse(refusedAtOnce.json).Errors).toEqual([{ Code: 429, Message: "Too many requests" }]);

      // 100 of the attacker's at once, with their bodies, while the other account sends 4 rounds of as many as its own line holds.
      const otherRounds = async () => {
        const answers: Response[] = [];
        for (let round = 0; round < 4; round++) {
          const n = IN_PROGRESS + WAITING;
          answers.push(...(await Promise.all(Array.from({ length: n }, (_, i) => send(other.apiKey, message(`other${round * n + i}@example.org`))))));
        }
        return answers;
      };
      const [burst, others] = await Promise.all([Promise.all(Array.from({ length: 100 }, (_, i) => send(attacker.apiKey, message(`burst${i}@example.org`)))), otherRounds()]);
      expect(burst.map((r) => r.status)).toEqual(Array.from({ length: 100 }, () => 429));
      for (const r of burst) {
        expect(r.headers.get("Retry-After")).toBe("1");
        expect(errorEnvelopeSchema.parse(await r.json()).Errors).toEqual([{ Code: 429, Message: "Too many requests" }]);
      }
      expect(others.map((r) => r.status)).toEqual(Array.from({ length: 4 * (IN_PROGRESS + WAITING) }, () => 200));

      // The batch and the template renders share the line.
      const batch = await send(attacker.apiKey, [message("b@example.org")], "/api/v1/email/batch");
      expect(batch.status).toBe(429);
      const render = await send(attacker.apiKey, { Subject: "s", HTMLContent: "<p>{{x}}</p>", TemplateModel: { x: 1 } }, "/api/v1/templates/render");
      expect(render.status).toBe(429);
      // Another account's render is not in that line.
      expect((await send(other.apiKey, { Subject: "s", HTMLContent: "<p>{{x}}</p>", TemplateModel: { x: 1 } }, "/api/v1/templates/render")).status).toBe(200);

      // The held bodies arrive: every held request is served (the waiting ones once a place is free).
      for (const h of held) h.sendBody();
      await Promise.all(held.map((h) => h.closed));
      expect(held.map((h) => finalAnswer(h.received()).status)).toEqual(Array.from({ length: IN_PROGRESS + WAITING }, () => 200));
      // And the line is free again.
      expect((await send(attacker.apiKey, message("after@example.org"))).status).toBe(200);
    } finally {
      for (const h of held) h.destroy();
    }
  }, 60_000);
});
