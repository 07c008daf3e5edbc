import fc from "fast-check";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { simpleParser } from "mailparser";
import { escapeAttribute, extractTrackableLinks } from "../../lib/tracking/tracking-html";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAccount } from "../support/fixtures";
import { eventsOf, sendViaApi, simpleEmail, waitFor, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

describe("tracking: open pixel, click redirect, unsubscribe", () => {
  let app: TestApp;
  let apiKey: string;
  let accountId: string;
  beforeAll(async () => {
    app = await startTestApp();
    ({ apiKey, accountId } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** Sends through the API, waits for the sandbox to capture it, returns the parsed copy. */
  async function sendAndCapture(to: string, extra: Record<string, unknown> = {}) {
    const id = await sendViaApi(app, apiKey, simpleEmail(to, extra));
    await waitForEvent(app.ctx, id, "delivered", to);
    const raw = await waitFor("the sandbox copy", async () => {
      const { rows } = await app.ctx.database.pool.query("SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1", [id]);
      return rows[0]?.raw as Buffer | undefined;
    });
    const parsed = await simpleParser(raw);
    const html = typeof parsed.html === "string" ? parsed.html : "";
    const pixel = /<img src="([^"]+\/t\/o\/[^"]+)"/.exec(html)?.[1];
    const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
    const listUnsubscribe = /^List-Unsubscribe: <([^>]+)>/m.exec(raw.toString())?.[1] ?? "";
    return { id, html, pixel, links, listUnsubscribe, raw };
  }

  const path = (url: string) => new URL(url).pathname;

  it("logs `opened` with the client address when the pixel is fetched", async () => {
    const m = await sendAndCapture("open@example.org");
    expect(m.pixel).toMatch(/^http:\/\/localhost:\d+\/t\/o\//);
    const res = await app.fetch(path(m.pixel!));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/gif");
    expect(res.headers.get("cache-control")).toContain("no-store");
    expect(Buffer.from(await res.arrayBuffer()).subarray(0, 6).toString()).toBe("GIF89a");
    const opened = await waitForEvent(app.ctx, m.id, "opened", "open@example.org");
    expect(opened.ip).toBe("127.0.0.1");
    expect(opened.geo_country).toBe(""); // private address: no geolocation
  });

  it("uses X-Forwarded-For only behind a trusted proxy, and geolocates public addresses", async () => {
    const m = await sendAndCapture("geo@example.org");
    await app.fetch(path(m.pixel!), { headers: { "X-Forwarded-For": "81.2.69.142" } });
    // A second open within 10 s would only be counted (engagement-repeats.test.ts): move the window back.
    await app.ctx.database.pool.query("UPDATE engagement_windows SET window_start = window_start - interval '1 minute'");
    // Behind one proxy (MAILROOM_TRUST_PROXY=1): the entry it appended, the rightmost; the client wrote the rest.
    app.ctx.config.trustProxyHops = 1;
    try {
      await app.fetch(path(m.pixel!), { headers: { "X-Forwarded-For": "8.8.8.8, 81.2.69.142" } });
    } finally {
      app.ctx.config.trustProxyHops = 0;
    }
    const opens = (await eventsOf(app.ctx, m.id)).filter((e) => e.type === "opened");
    expect(opens.map((e) => e.ip)).toEqual(["127.0.0.1", "81.2.69.142"]);
    expect(opens[1]!.geo_country).toBe("GB");
    const res = await app.fetch(`/api/v1/events?MessageID=${m.id}&Event=opened`, { headers: { Authorization: `Bearer ${apiKey}` } });
    const body = (await res.json()) as { Events: { Ip: string; Geolocation: { Country: string } }[] };
    expect(body.Events[0]).toMatchObject({ Ip: "81.2.69.142", Geolocation: { Country: "GB" } });
  });

  it("redirects a click to the stored URL only, and logs `clicked` with the Url", async () => {
    const m = await sendAndCapture("click@example.org");
    const tracked = m.links.find((l) => l.includes("/t/c/"))!;
    expect(tracked).toBeDefined();
    const res = await app.fetch(path(tracked), { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://example.org/welcome?a=1&b=2");
    const clicked = await waitForEvent(app.ctx, m.id, "clicked", "click@example.org");
    expect(clicked.url).toBe("https://example.org/welcome?a=1&b=2");
  });

  it("two recipients of one message (one copy template): each copy has its own tokens and a DKIM signature that verifies", async () => {
    const to = ["pair-a@example.org", "pair-b@example.org"];
    const id = await sendViaApi(app, apiKey, simpleEmail(to));
    for (const r of to) await waitForEvent(app.ctx, id, "delivered", r);
    const { rows } = await app.ctx.database.pool.query<{ raw: Buffer }>("SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1", [id]);
    expect(rows).toHaveLength(2);
    const { rows: keys } = await app.ctx.database.pool.query("SELECT dkim_public_key FROM sender_domains WHERE name = 'example.com' AND account_id = $1", [accountId]);
    const p = (keys[0].dkim_public_key as string).replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
    const resolver = async (name: string, type: string) => {
      if (type === "TXT" && name === "mailroom._domainkey.example.com") return [[`v=DKIM1; k=rsa; p=${p}`]];
      throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const tokens: string[] = [];
    for (const { raw } of rows) {
      expect((await dkimVerify(raw, { resolver })).results[0]?.status.result).toBe("pass");
      const parsed = await simpleParser(raw);
      const html = typeof parsed.html === "string" ? parsed.html : "";
      const click = /href="[^"]+\/t\/c\/([^"]+)"/.exec(html)![1]!;
      const open = /<img src="[^"]+\/t\/o\/([^"]+)"/.exec(html)![1]!;
      const unsubscribe = /^List-Unsubscribe: <[^>]+\/t\/u\/([^>]+)>/m.exec(raw.toString())![1]!;
      tokens.push(click, open, unsubscribe);
      // The click of each copy is logged for that copy's recipient.
      expect((await app.fetch(`/t/c/${click}`, { redirect: "manual" })).headers.get("location")).toBe("https://example.org/welcome?a=1&b=2");
    }
    expect(new Set(tokens).size).toBe(6);
    for (const r of to) await waitForEvent(app.ctx, id, "clicked", r);
  });

  it("refuses tampered tokens with a 404 and logs nothing", async () => {
    const m = await sendAndCapture("tamper@example.org");
    const tracked = path(m.links.find((l) => l.includes("/t/c/"))!);
    const token = tracked.split("/").pop()!;
    const parts = token.split(".");
    const variants = [
      [...parts.slice(0, 3), "1", parts[4]].join("."), // another link index
      [parts[0], parts[1], (Number.parseInt(parts[2]!, 36) + 1).toString(36), parts[3], parts[4]].join("."), // another recipient
      token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA"), // forged signature
      `o${token.slice(1)}`, // a click token used as a pixel
    ];
    for (const v of variants) {
      const res = await app.fetch(`/t/c/${v}`, { redirect: "manual" });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ Errors: [{ Code: 404, Message: "Resource not found" }] });
    }
    expect((await app.fetch(`/t/o/${token}`)).status).toBe(404);
    expect((await eventsOf(app.ctx, m.id)).map((e) => e.type)).toEqual(["accepted", "delivered"]);
  });

  it("shows a confirmation page on GET and unsubscribes on POST, once", async () => {
    const m = await sendAndCapture("unsub@example.org");
    expect(m.listUnsubscribe).toMatch(/\/t\/u\//);
    const page = await app.fetch(path(m.listUnsubscribe));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post">');
    expect((await eventsOf(app.ctx, m.id)).some((e) => e.type === "unsubscribed")).toBe(false);
    const done = await app.fetch(path(m.listUnsubscribe), {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "confirm=yes",
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("You are unsubscribed");
    await app.fetch(path(m.listUnsubscribe), { method: "POST", body: "confirm=yes" });
    const events = (await eventsOf(app.ctx, m.id)).filter((e) => e.type === "unsubscribed");
    expect(events).toHaveLength(1);
    expect(events[0]!.ip).toBe("127.0.0.1");
    const { rows } = await app.ctx.database.pool.query("SELECT reason FROM suppressions WHERE account_id = $1 AND email = 'unsub@example.org'", [accountId]);
    expect(rows[0]?.reason).toBe("unsubscribe");
  });

  it("accepts RFC 8058 one-click POST", async () => {
    const m = await sendAndCapture("oneclick@example.org");
    const res = await app.fetch(path(m.listUnsubscribe), {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(res.status).toBe(200);
    const e = await waitForEvent(app.ctx, m.id, "unsubscribed", "oneclick@example.org");
    expect(e.reason).toContain("one-click");
  });

  it("honours the per-message X-Mailroom-Track header and the account's opt-out", async () => {
    const opensOnly = await sendAndCapture("opens-only@example.org", { Headers: { "X-Mailroom-Track": "opens" } });
    expect(opensOnly.pixel).toBeDefined();
    expect(opensOnly.links).toContain("https://example.org/welcome?a=1&b=2");
    expect(opensOnly.raw.toString()).not.toMatch(/X-Mailroom-Track/i);

    await app.ctx.database.pool.query("UPDATE accounts SET track_opens = false, track_clicks = false WHERE id = $1", [accountId]);
    try {
      const none = await sendAndCapture("account-off@example.org", { Headers: { "X-Mailroom-Track": "all" } });
      expect(none.pixel).toBeUndefined();
      expect(none.links).toEqual(["https://example.org/welcome?a=1&b=2"]);
      expect(none.listUnsubscribe).toMatch(/\/t\/u\//); // List-Unsubscribe is always there
    } finally {
      await app.ctx.database.pool.query("UPDATE accounts SET track_opens = true, track_clicks = true WHERE id = $1", [accountId]);
    }
  });

  it("redirects to the URL as the URL parser serialises it, shows a page when it cannot, and logs the click after the answer", async () => {
    const html =
      '<p><a href="https://ja.wikipedia.org/wiki/日本">ja</a> <a href="https://[::1">broken</a> <a href="https://example.org/&#x110000;">cp</a></p>';
    const m = await sendAndCapture("unicode@example.org", { HTMLContent: html });
    const tracked = m.links.filter((l) => l.includes("/t/c/"));
    expect(tracked).toHaveLength(3);

    const ja = await app.fetch(path(tracked[0]!), { redirect: "manual" });
    expect(ja.status).toBe(302);
    expect(ja.headers.get("location")).toBe("https://ja.wikipedia.org/wiki/%E6%97%A5%E6%9C%AC");
    const broken = await app.fetch(path(tracked[1]!), { redirect: "manual" });
    expect(broken.status).toBe(200);
    expect(broken.headers.get("content-type")).toContain("text/html");
    expect(await broken.text()).toContain('<a href="https://[::1" rel="noopener noreferrer">https://[::1</a>');
    const cp = await app.fetch(path(tracked[2]!), { redirect: "manual" });
    expect(cp.status).toBe(302);
    expect(cp.headers.get("location")).toBe("https://example.org/%EF%BF%BD");

    const clicks = await waitFor("three clicks", async () => {
      const c = (await eventsOf(app.ctx, m.id)).filter((e) => e.type === "clicked");
      return c.length === 3 ? c : undefined;
    });
    expect(clicks.map((e) => e.url)).toEqual(["https://ja.wikipedia.org/wiki/日本", "https://[::1", "https://example.org/\uFFFD"]);
    const { rows } = await app.ctx.database.pool.query("SELECT tracked_links FROM messages WHERE id = $1", [m.id]);
    expect(rows[0].tracked_links).toEqual(["https://ja.wikipedia.org/wiki/日本", "https://[::1", "https://example.org/\uFFFD"]);
  });

  it("property: random links through delivery and the click route never give a 500, and a redirect leads to the original", async () => {
    const link = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.tuple(fc.webUrl(), fc.string({ unit: "binary", maxLength: 24 })).map(([u, x]) => u + x),
      fc.string({ unit: "binary", maxLength: 30 }).map((x) => `https://${x}`),
      fc.constantFrom("https://ja.wikipedia.org/wiki/日本", "https://例え.テスト/パス?q=値#ü", "http://a.test/%zz", "https://a.test:99999/"),
    );
    const noise = fc.constantFrom("", "<b>", "&amp;", "<!-- x -->", "&#x110000;", "<", '"', "<br/>");
    const links = fc.sample(link, { numRuns: 80, seed: 11 });
    const noises = fc.sample(noise, { numRuns: 80, seed: 12 });
    const html = links.map((l, i) => `${noises[i]}<a href="${escapeAttribute(l)}">${i}</a>`).join("\n");
    const expected = await extractTrackableLinks(html);
    expect(expected.length).toBeGreaterThan(40);
    const m = await sendAndCapture("property@example.org", { HTMLContent: html });
    const tracked = m.links.filter((l) => l.includes("/t/c/"));
    expect(tracked).toHaveLength(expected.length);
    for (const [i, t] of tracked.entries()) {
      const res = await app.fetch(path(t), { redirect: "manual" });
      await res.arrayBuffer();
      const original = expected[i]!;
      if (res.status === 302) {
        const location = res.headers.get("location")!;
        expect(new URL(location).href, original).toBe(new URL(original).href);
      } else {
        expect(res.status, original).toBe(200);
        expect(() => {
          const u = new URL(original);
          if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("not http(s)");
        }, original).toThrow();
      }
    }
  });
});
