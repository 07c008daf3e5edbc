import { monitorEventLoopDelay } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getInboundAddress, sendToInbound } from "../../lib/inbound/inbound-server";
import { aggregateReportXml, reportMail, zipOne } from "../support/dmarc-reports";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The stall budget (docs/adr/0310) for DMARC aggregate reports
 * (docs/adr/0809): the app runs in this process, so the event-loop delay
 * measured while the inbound server takes a hostile report is what every
 * other session and the API would suffer. A gzip bomb, a zip bomb, a report
 * nested 100,000 levels deep, a billion-laughs DTD and the largest report
 * under the 10 MB cap each stay under 200 ms (monitorEventLoopDelay, 10 ms
 * resolution); the hostile ones are refused, the large one stored.
 */

const BUDGET_MS = 200;
const TO = "dmarc@bounces.stall-dmarc.example";

/** 16 gzip members of 64 MiB of spaces each: about 1 MB that expands to 1 GiB (gunzip reads every member). */
function gzipBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
  return Buffer.concat(Array.from({ length: 16 }, () => member));
}

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE feedback [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<feedback><report_metadata><org_name>&lol9;</org_name></report_metadata></feedback>`;

describe("stall budget: hostile and large DMARC reports", () => {
  let app: TestApp;
  let apiKey: string;
  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: "10000" });
    ({ apiKey } = await createTestAccount(app.ctx, { domain: "stall-dmarc.example" }));
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  /** The SMTP reply (or the refusal's text) and the largest event-loop delay while the server took it. */
  async function measured(raw: Buffer): Promise<{ reply: string; maxMs: number }> {
    const inbound = getInboundAddress(app.ctx)!;
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    const reply = await sendToInbound(inbound, raw, { from: "noreply-dmarc-support@google.com", to: TO }).catch((err: Error) => err.message);
    h.disable();
    return { reply, maxMs: Math.round(h.max / 1e6) };
  }

  const attached = (attachment: Buffer, contentType: string, filename: string) => reportMail({ to: TO, attachment, contentType, filename });

  it("refuses bombs, deep nesting and entity expansion, and stores the largest report, each within the budget", async () => {
    const deep = Buffer.from("<feedback>" + "<x>".repeat(100_000) + "</x>".repeat(100_000) + "</feedback>");
    const records = Array.from({ length: 14_000 }, (_, i) => ({ ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, count: 1 + (i % 7) }));
    const large = Buffer.from(aggregateReportXml({ domain: "stall-dmarc.example", reportId: "large-1", records }));
    expect(large.length).toBeGreaterThan(8 * 1024 * 1024);
    expect(large.length).toBeLessThan(10 * 1024 * 1024);
    const cases: [string, Buffer, RegExp][] = [
      ["gzip bomb", attached(gzipBomb(), "application/gzip", "bomb.xml.gz"), /554 5\.6\.0 .*expands past 10485760 bytes/],
      ["zip bomb", attached(zipOne("bomb.xml", Buffer.alloc(256 * 1024 * 1024, 0x20)), "application/zip", "bomb.zip"), /554 5\.6\.0 .*expands past/],
      ["100,000 levels", attached(gzipSync(deep), "application/gzip", "deep.xml.gz"), /554 5\.6\.0 .*nested more than 16 deep/],
      ["billion laughs", attached(Buffer.from(BILLION_LAUGHS), "text/xml", "lol.xml"), /554 5\.6\.0 .*DTD/],
      ["largest report", attached(gzipSync(large), "application/gzip", "large.xml.gz"), /^250/],
    ];
    const delays: Record<string, number> = {};
    for (const [name, raw, reply] of cases) {
      const r = await measured(raw);
      expect(r.reply, name).toMatch(reply);
      delays[name] = r.maxMs;
    }
    console.log("DMARC reports: max event-loop delay (ms) %j, budget %d ms", delays, BUDGET_MS);
    expect(Math.max(...Object.values(delays)), `event-loop delay (ms) ${JSON.stringify(delays)}`).toBeLessThan(BUDGET_MS);

    const res = await app.fetch("/api/v1/domains/stall-dmarc.example/dmarc", { headers: bearer(apiKey) });
    const body = (await res.json()) as { Reports: number; Sources: unknown[] };
    expect(res.status).toBe(200);
    expect(body.Reports).toBe(1);
    expect(body.Sources).toHaveLength(200);
  }, 180_000);
});
