import { simpleParser } from "mailparser";
import pg from "pg";

/**
 * Real traffic for the dashboard: messages sent through POST /api/v1/email
 * to the sandbox MX (which bounces bounce@…, blocks blocked@…, delivers the
 * rest), then the open pixel and a tracked link of one delivered message
 * fetched as a mail client would.
 */

async function send(url: string, apiKey: string, body: unknown): Promise<string> {
  const res = await fetch(`${url}/api/v1/email`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { MessageID?: string };
  if (res.status !== 200 || !json.MessageID) throw new Error(`POST /email answered ${res.status}: ${JSON.stringify(json)}`);
  return json.MessageID;
}

export async function countEvents(url: string, apiKey: string, query: Record<string, string>): Promise<number> {
  const qs = new URLSearchParams({ RetrieveCount: "1", ...query });
  const res = await fetch(`${url}/api/v1/events?${qs}`, { headers: { Authorization: `Bearer ${apiKey}` } });
  if (!res.ok) throw new Error(`GET /events answered ${res.status}`);
  return ((await res.json()) as { TotalRecords: number }).TotalRecords;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

const from = { name: "Demo", email: "hello@example.com" };

export async function seedTraffic(url: string, apiKey: string, databaseUrl: string) {
  const engaged = await send(url, apiKey, {
    From: from,
    To: [{ name: "Ann Example", email: "ann@example.org" }],
    CC: [{ name: "Carl", email: "carl@example.org" }],
    Subject: "Welcome to Mailroom",
    ContentType: "HTML",
    HTMLContent: '<html><body><p>Hello Ann, <a href="https://example.net/start">get started</a>.</p></body></html>',
    PlainContent: "Hello Ann",
    Tags: ["welcome"],
  });
  const bounced = await send(url, apiKey, {
    From: from,
    To: [{ email: "bounce@example.org" }],
    Subject: "Your invoice",
    ContentType: "Text",
    PlainContent: "Invoice attached",
  });
  const blocked = await send(url, apiKey, {
    From: from,
    To: [{ email: "blocked@example.org" }],
    Subject: "Policy test",
    ContentType: "Text",
    PlainContent: "Hi",
  });
  const bulk: string[] = [];
  for (let i = 1; i <= 12; i++) {
    bulk.push(
      await send(url, apiKey, {
        From: from,
        To: [{ email: `user${i}@example.org` }],
        Subject: `Newsletter #${i}`,
        ContentType: "HTML",
        HTMLContent: `<p>Issue ${i}</p>`,
      }),
    );
  }
  const recipients = 2 + 1 + 1 + 12;
  await waitFor("every recipient's outcome", async () => {
    const [d, f, r] = await Promise.all(["delivered", "failed", "rejected"].map((Event) => countEvents(url, apiKey, { Event })));
    return d! + f! + r! >= recipients;
  });

  // Open and click ann's copy as a mail client would, from the message the sandbox MX captured.
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ raw: Buffer }>(
      "SELECT raw FROM sandbox_messages WHERE mailroom_message_id = $1 AND 'ann@example.org' = ANY(rcpt_to) ORDER BY id LIMIT 1",
      [engaged],
    );
    if (!rows[0]) throw new Error("the sandbox MX did not capture the engaged message");
    const mail = await simpleParser(rows[0].raw);
    const html = typeof mail.html === "string" ? mail.html : "";
    const pixel = /<img[^>]+src="([^"]*\/t\/[^"]+)"/.exec(html)?.[1];
    const link = /<a[^>]+href="([^"]*\/t\/[^"]+)"/.exec(html)?.[1];
    if (!pixel || !link) throw new Error(`no tracking URLs in the captured HTML:\n${html}`);
    const local = (u: string) => u.replace(/^https?:\/\/[^/]+/, url).replace(/&amp;/g, "&");
    await fetch(local(pixel));
    await fetch(local(link), { redirect: "manual" });
  } finally {
    await client.end();
  }
  await waitFor("the open and the click", async () => {
    const [o, c] = await Promise.all(["opened", "clicked"].map((Event) => countEvents(url, apiKey, { Event, MessageID: engaged })));
    return o! >= 1 && c! >= 1;
  });
  return { engaged, bounced, blocked, bulk };
}
