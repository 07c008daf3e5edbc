import http from "node:http";
import { monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeTrackingToken } from "../../lib/tracking/tracking-tokens";
import { getTrackingSecret } from "../../lib/domain/tracking/tracking-secret";
import { bearer, createTestAccount } from "../support/fixtures";
import { waitFor } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The stall budget (ADR 0310): no request can stall the service. The API is served in this
 * process (startTestApp: real HTTP server, real PostgreSQL, inline delivery
 * workers, the sandbox MX), so the event loop delay measured here is the
 * one every other tenant, /healthz and the workers would suffer.
 *
 * Each worst case (runs of white space, `<`, `<a `, quotes, `&#x` and
 * entity runs) goes into every string field of POST /email at the largest
 * size accepted (a body of about 10 MB), then HTML bodies up to 10 MB go
 * through delivery and the click route. While each is in flight — for an
 * accepted message, until every recipient has its final event — the
 * maximum event loop delay (monitorEventLoopDelay, 10 ms resolution) must
 * stay under 200 ms, and every answer must be a 4xx or a 200. A case over
 * the budget is measured again (up to three times); it fails when it is over
 * every time.
 *
 * An ordinary 10 MB message, accepted and delivered, is measured too (the
 * "control" rows, first in each group): it is held to the same flat budget.
 * What used to cost 300–650 ms of delay there (JSON parse and stringify of the
 * body, the MIME build, base64 of attachments, DKIM, the SMTP write, the
 * sandbox capture) now runs on worker threads or in 64 KB steps with a turn
 * of the event loop between them (docs/adr/0310-large-messages-off-the-event-loop.md).
 * The old code failed either way (11–24 s for 100 KB of spaces in an
 * address, 14 s for 300 KB of `<a ` in a body).
 */

const BUDGET_MS = 200;
/** Measurements of a case over the budget before it fails (see `measured`). */
const MEASUREMENTS = 3;
/** Characters of the hostile run: with its JSON escaping, a body of about 10 MB. */
const RUN_BYTES = 10_000_000;

const RUNS: Record<string, string> = {
  spaces: " ",
  "<": "<",
  "<a ": "<a ",
  '"': '"',
  "'": "'",
  "&#x": "&#x",
  "&amp;": "&amp;",
};

function run(unit: string): string {
  const encoded = JSON.stringify(unit).length - 2;
  return `a${unit.repeat(Math.floor(RUN_BYTES / encoded))}b`;
}

const base = () => ({
  From: { name: "Ann", email: "ann@example.com" },
  To: [{ name: "Bob", email: "bob@example.org" }],
  Subject: "Stall budget",
  ContentType: "HTML",
  HTMLContent: '<p>Hello <a href="https://example.org/x">x</a></p>',
  PlainContent: "Hello",
});

type Patch = (body: Record<string, unknown>, hostile: string) => void;
const attachment = (extra: Record<string, unknown>) => ({ Content: Buffer.from("hi").toString("base64"), Filename: "a.txt", ...extra });

const FIELDS: Record<string, Patch> = {
  From: (b, h) => (b.From = h),
  "From.name": (b, h) => (b.From = { name: h, email: "ann@example.com" }),
  "From.email": (b, h) => (b.From = { name: "Ann", email: h }),
  ...Object.fromEntries(
    (["To", "CC", "BCC", "ReplyTo"] as const).flatMap((k) => [
      [`${k}[0]`, ((b, h) => (b[k] = k === "To" ? [h] : [h])) as Patch],
      [`${k}[0].name`, ((b, h) => (b[k] = [{ name: h, email: "carl@example.org" }])) as Patch],
      [`${k}[0].email`, ((b, h) => (b[k] = [{ name: "Carl", email: h }])) as Patch],
    ]),
  ),
  Subject: (b, h) => (b.Subject = h),
  HTMLContent: (b, h) => (b.HTMLContent = h),
  PlainContent: (b, h) => (b.PlainContent = h),
  "Tags[0]": (b, h) => (b.Tags = [h]),
  "Headers name": (b, h) => (b.Headers = { [h]: "x" }),
  "Headers value": (b, h) => (b.Headers = { "X-Custom": h }),
  "Attachments[0].Filename": (b, h) => (b.Attachments = [attachment({ Filename: h })]),
  "Attachments[0].Type": (b, h) => (b.Attachments = [attachment({ Type: h })]),
  "Attachments[0].ContentId": (b, h) => (b.Attachments = [attachment({ Disposition: "inline", ContentId: h })]),
};

describe("stall budget: hostile input never holds the event loop", () => {
  let app: TestApp;
  let apiKey: string;
  const table: { case: string; status: string; "max delay (ms)": number; "longest GC (ms)": number }[] = [];
  // GC pauses, printed beside each case's delay: on a loaded machine they and the wait for a core are what is left.
  const gcs: PerformanceEntry[] = [];
  const gcObserver = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
  gcObserver.observe({ entryTypes: ["gc"] });

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_DELIVERY_RETRY_SCHEDULE: "500ms", MAILROOM_DELIVERY_MAX_AGE: "20s" });
    ({ apiKey } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    console.log("Worst event loop delay per case (budget: %d ms)", BUDGET_MS);
    console.table(table);
    gcObserver.disconnect();
    await app?.stop();
  });

  /**
   * Runs `work` with the event loop delay monitored; records and returns the worst delay in ms.
   * A case over the budget is measured again, up to MEASUREMENTS times, and its last measurement
   * counts: a step that holds the loop is over every time, while a wait for a core or a slow page
   * fault of a busy 2-core machine is not (docs/adr/0310). Every measurement is in the table.
   */
  async function measured<T>(name: string, work: () => Promise<{ status: string; value: T }>): Promise<{ delay: number; value: T }> {
    for (let attempt = 1; ; attempt++) {
      const h = monitorEventLoopDelay({ resolution: 10 });
      const since = performance.now();
      h.enable();
      let out: { status: string; value: T };
      try {
        out = await work();
      } finally {
        h.disable();
      }
      const delay = Math.round(h.max / 1e6);
      const gc = Math.round(Math.max(0, ...gcs.filter((e) => e.startTime >= since).map((e) => e.duration)));
      table.push({ case: attempt > 1 ? `${name} (measured again, ${attempt})` : name, status: out.status, "max delay (ms)": delay, "longest GC (ms)": gc });
      if (delay < BUDGET_MS || attempt === MEASUREMENTS) return { delay, value: out.value };
    }
  }

  /** An ordinary message of 10 MB (text and links), accepted and delivered: legitimate input of that size, under the same budget. */
  async function control(label: string): Promise<number> {
    const html = `<p>${"Dear customer, here is your monthly statement. ".repeat(200_000)}</p><p><a href="https://example.org/account">Account</a></p>`;
    const raw = Buffer.from(JSON.stringify({ ...base(), HTMLContent: html }));
    const { delay, value } = await measured(`control: ordinary 10 MB message (${label})`, () => post(raw));
    expect(value.status).toBe(200);
    return delay;
  }

  /** Every recipient of the message has its final event (not queued or deferred). */
  async function settled(messageId: string) {
    await waitFor(
      `the final events of ${messageId}`,
      async () => {
        const { rows } = await app.ctx.database.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM message_recipients WHERE message_id = $1 AND status IN ('queued', 'deferred')",
          [messageId],
        );
        return rows[0]!.n === 0 ? true : undefined;
      },
      60_000,
    );
  }

  /**
   * POST /email with a prepared body; when accepted, waits for delivery too.
   * Sent with node:http from a Buffer: the client shares the event loop being
   * measured, and fetch() copies a 10 MB body in steps of ~50 ms of its own.
   */
  async function post(body: Buffer): Promise<{ status: string; value: { status: number; messageId?: string } }> {
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${app.url}/api/v1/email`, { method: "POST", headers: { ...bearer(apiKey), "Content-Length": String(body.length) } }, (r) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c));
        r.on("end", () => resolve({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        r.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
    const json = JSON.parse(res.text) as { MessageID?: string; Errors?: { Code: number; Field?: string }[] };
    if (json.MessageID) await settled(json.MessageID);
    const status = json.MessageID ? "200 delivered" : `${res.status} ${json.Errors?.[0]?.Code ?? ""} ${(json.Errors?.[0]?.Field ?? "").slice(0, 40)}`.trim();
    return { status, value: { status: res.status, messageId: json.MessageID } };
  }

  for (const [runName, unit] of Object.entries(RUNS)) {
    it(`POST /email with a ${JSON.stringify(runName)} run in every string field`, async () => {
      const delays: [string, number][] = [[`control (${runName})`, await control(runName)]];
      const hostile = run(unit);
      const failures: string[] = [];
      for (const [field, patch] of Object.entries(FIELDS)) {
        const body = base();
        patch(body, hostile);
        const raw = Buffer.from(JSON.stringify(body));
        const { delay, value } = await measured(`${field} ← ${runName} (${(raw.length / 1e6).toFixed(1)} MB)`, () => post(raw));
        if (!(value.status === 200 || (value.status >= 400 && value.status < 500))) failures.push(`${field}: HTTP ${value.status}`);
        delays.push([field, delay]);
      }
      for (const [field, delay] of delays) if (delay >= BUDGET_MS) failures.push(`${field}: ${delay} ms (budget ${BUDGET_MS} ms)`);
      expect(failures).toEqual([]);
    }, 600_000);
  }

  it("a request path of 15,000 slashes (the longest the HTTP parser takes)", async () => {
    const r = await measured("GET /api/v1/ + 15,000 slashes + x", async () => {
      const res = await app.fetch(`/api/v1/${"/".repeat(15_000)}x`, { headers: bearer(apiKey) });
      await res.arrayBuffer();
      return { status: `${res.status}`, value: res.status };
    });
    expect(r.value).toBe(404);
    expect(r.delay).toBeLessThan(BUDGET_MS);
  });

  it("attachments up to 10 MB of base64 through delivery", async () => {
    const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff)).toString("base64");
    const cases: Record<string, { Content: string; Filename: string; Disposition?: string; ContentId?: string }[]> = {
      "one attachment of 7.5 MB": [{ Content: bytes(7_500_000, 1), Filename: "big.bin" }],
      "100 attachments of 75 KB": Array.from({ length: 100 }, (_, i) => ({ Content: bytes(75_000, i), Filename: `f${i}.bin` })),
      "an inline image of 7.5 MB": [{ Content: bytes(7_500_000, 2), Filename: "big.png", Disposition: "inline", ContentId: "big" }],
    };
    const failures: string[] = [];
    for (const [name, Attachments] of Object.entries(cases)) {
      const raw = Buffer.from(JSON.stringify({ ...base(), Attachments }));
      const { delay, value } = await measured(`delivery: ${name} (${(raw.length / 1e6).toFixed(1)} MB)`, () => post(raw));
      if (value.status !== 200) failures.push(`${name}: HTTP ${value.status}`);
      if (delay >= BUDGET_MS) failures.push(`${name}: ${delay} ms (budget ${BUDGET_MS} ms)`);
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it("HTML bodies up to 10 MB through delivery and the click route", async () => {
    const links = (n: number) => Array.from({ length: n }, (_, i) => `<p><a href="https://example.org/${i}?a=1&amp;b=${i}">link ${i}</a></p>`).join("\n");
    const pad = (html: string, bytes: number) => html + `<p>${"lorem ipsum ".repeat(Math.max(0, Math.floor((bytes - html.length) / 12)))}</p>`;
    const bodies: Record<string, string> = {
      "2 KB, 10 links": pad(links(10), 2_000),
      "1 MB, 1,000 links": pad(links(1_000), 1_000_000),
      "10 MB, 10,000 links": pad(links(10_000), 10_000_000),
      "10 MB of `<a ` then a link": `${"<a ".repeat(3_300_000)}><a href="https://example.org/last">last</a>`,
      "10 MB of `&#x` in an href": `<a href="https://example.org/${"&#x".repeat(3_300_000)}">x</a><a href="https://example.org/&#x110000;">y</a>`,
      "10 MB of quotes (5 MB as JSON escapes them), unclosed": `<a href="https://example.org/q">q</a><a href="${'"'.repeat(5_000_000)}`,
    };
    const failures: string[] = [];
    const delays: [string, number][] = [["control (delivery)", await control("delivery")]];
    for (const [name, html] of Object.entries(bodies)) {
      const raw = Buffer.from(JSON.stringify({ ...base(), HTMLContent: html }));
      const { delay, value } = await measured(`delivery: ${name}`, () => post(raw));
      if (value.status !== 200) failures.push(`delivery ${name}: HTTP ${value.status}`);
      delays.push([`delivery ${name}`, delay]);
      if (!value.messageId) continue;
      // The delivery kept the message's link list: click its last link, as the recipient would.
      const { rows } = await app.ctx.database.pool.query<{ n: number | null; recipient: number }>(
        "SELECT jsonb_array_length(m.tracked_links) AS n, r.id AS recipient FROM messages m JOIN message_recipients r ON r.message_id = m.id WHERE m.id = $1",
        [value.messageId],
      );
      if (!rows[0]?.n) {
        failures.push(`${name}: no link list kept`);
        continue;
      }
      const secret = await getTrackingSecret(app.ctx.database, app.ctx.config.tracking.secret);
      const token = encodeTrackingToken(secret, { kind: "c", messageId: value.messageId, recipientId: rows[0].recipient, link: rows[0].n - 1 });
      const click = async (label: string) => {
        const r = await measured(`click: ${name}${label}`, async () => {
          const res = await app.fetch(`/t/c/${token}`, { redirect: "manual" });
          await res.arrayBuffer();
          return { status: `${res.status}`, value: res.status };
        });
        if (!(r.value === 302 || r.value === 200)) failures.push(`click ${name}${label}: HTTP ${r.value}`);
        delays.push([`click ${name}${label}`, r.delay]);
      };
      await click("");
      // A message sent before link lists were kept: the click tokenizes the stored body (in chunks) once.
      await app.ctx.database.pool.query("UPDATE messages SET tracked_links = NULL WHERE id = $1", [value.messageId]);
      await click(" (no stored link list)");
    }
    for (const [name, delay] of delays) if (delay >= BUDGET_MS) failures.push(`${name}: ${delay} ms (budget ${BUDGET_MS} ms)`);
    expect(failures).toEqual([]);
  }, 600_000);
});
