import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTlsSessionCounter } from "../../lib/delivery/tls-reports/session-counter";
import type { TlsSessionResult } from "../../lib/delivery/tls-policy/tls-result";
import { openDatabase, type Database } from "../../lib/storage/database";
import {
  claimTlsReport,
  finishTlsReport,
  purgeTlsReportDays,
  selectTlsReportDomains,
  selectTlsReportsSent,
  selectTlsSessionCounts,
} from "../../lib/storage/tls-report-rows";
import { createTestDatabase } from "../support/test-database";

/** TLS-RPT's counter against PostgreSQL (docs/adr/0328): flushes add up, across counters (processes) and flushes. */

const at = Date.UTC(2026, 10, 30, 12, 0, 0);
const result = (over: Partial<TlsSessionResult> = {}): TlsSessionResult => ({
  policyDomain: "example.test",
  policyType: "sts",
  policyString: ["version: STSv1", "mode: testing", "mx: mx.example.test", "max_age: 86400"],
  mxHost: "mx.example.test",
  receivingIp: "127.0.0.9",
  sendingIp: "127.0.0.1",
  at,
  ...over,
});
const mismatch = { resultType: "certificate-host-mismatch" as const, additionalInformation: "the certificate names other.test" };

describe("the TLS-RPT session counter's flush", () => {
  let db: Database;
  beforeAll(async () => {
    db = openDatabase(await createTestDatabase(), { max: 4 });
  });
  afterAll(async () => {
    await db?.close();
  });

  it("adds each flush's counts to the day's rows, from several counters at once", async () => {
    const a = createTlsSessionCounter(db, { flushMs: 50 });
    const b = createTlsSessionCounter(db, { flushMs: 60_000 });
    for (let i = 0; i < 5; i++) a.add(result());
    for (let i = 0; i < 3; i++) b.add(result());
    a.add(result({ failure: mismatch }));
    b.add(result({ failure: mismatch }));
    b.add(result({ failure: mismatch, receivingIp: "127.0.0.10" }));
    b.add(result({ policyDomain: "other.test", mxHost: "mx.other.test", policyType: "tlsa", policyString: ["3 1 1 abcd"] }));
    // a's timer flushes by itself; b's at stop.
    await new Promise((r) => setTimeout(r, 300));
    expect(a.pendingKeys).toBe(0);
    await Promise.all([b.stop(), (async () => { a.add(result()); await a.stop(); })()]);

    const rows = await selectTlsSessionCounts(db, "2026-11-30", "example.test");
    expect(rows.map((r) => [r.resultType, r.receivingIp, r.sendingIp, r.count])).toEqual([
      ["", "", "", 9],
      ["certificate-host-mismatch", "127.0.0.10", "127.0.0.1", 1],
      ["certificate-host-mismatch", "127.0.0.9", "127.0.0.1", 2],
    ]);
    expect(rows[1]).toMatchObject({ policyType: "sts", policyString: result().policyString, mxHost: "mx.example.test", additionalInformation: mismatch.additionalInformation });
    expect(await selectTlsReportDomains(db, "2026-11-30", 100)).toEqual(["example.test", "other.test"]);
    expect(await selectTlsReportDomains(db, "2026-12-01", 100)).toEqual([]);
  });

  it("claims a domain-day's report once per rua; a failed one again, up to its attempts; the domain is done when every claimed rua is sent", async () => {
    const claim = (rua: string, over: { staleSeconds?: number; maxAttempts?: number } = {}) =>
      claimTlsReport(db, { policyDomain: "other.test", day: "2026-11-30", rua, reportId: "r1", staleSeconds: 1800, maxAttempts: 3, ...over });
    const finish = (rua: string, status: "sent" | "failed") => finishTlsReport(db, { policyDomain: "other.test", day: "2026-11-30", rua, status, detail: status });
    const [a, b] = await Promise.all([claim("mailto:a@x.test"), claim("mailto:a@x.test")]);
    expect([a, b].sort()).toEqual([false, true]);
    // Being sent: not claimed again until it is stale (its run died).
    expect(await claim("mailto:a@x.test")).toBe(false);
    expect(await claim("mailto:a@x.test", { staleSeconds: 0 })).toBe(true);
    await finish("mailto:a@x.test", "sent");
    expect(await claim("mailto:a@x.test", { staleSeconds: 0 })).toBe(false);
    expect(await claim("https://x.test/r")).toBe(true);
    await finish("https://x.test/r", "failed");
    expect(await selectTlsReportDomains(db, "2026-11-30", 100)).toEqual(["example.test", "other.test"]);
    expect(await claim("https://x.test/r")).toBe(true);
    await finish("https://x.test/r", "failed");
    expect(await claim("https://x.test/r")).toBe(true);
    await finish("https://x.test/r", "failed");
    // Three attempts spent.
    expect(await claim("https://x.test/r")).toBe(false);
    expect((await selectTlsReportsSent(db, "2026-11-30")).map((r) => `${r.rua} ${r.status} ${r.attempts}`)).toEqual(["https://x.test/r failed 3", "mailto:a@x.test sent 2"]);
    await claim("https://x.test/r", { maxAttempts: 4 });
    await finish("https://x.test/r", "sent");
    expect(await selectTlsReportDomains(db, "2026-11-30", 100)).toEqual(["example.test"]);
  });

  it("drops the days before the retention's first day", async () => {
    const c = createTlsSessionCounter(db, { flushMs: 60_000 });
    c.add(result({ at: Date.UTC(2026, 9, 1) }));
    await c.stop();
    expect(await purgeTlsReportDays(db, "2026-10-02")).toEqual({ counts: 1, reports: 0 });
    expect((await selectTlsSessionCounts(db, "2026-11-30", "example.test")).length).toBe(3);
  });
});
