import { describe, expect, it, vi } from "vitest";
import type { TlsSessionResult } from "../tls-policy/tls-result";
import { createSessionAggregate, createTlsSessionCounter, keyOf, KEY_BOUNDS, utcDayOf } from "./session-counter";

const at = Date.UTC(2026, 11, 1, 10, 0, 0);
const ok = (over: Partial<TlsSessionResult> = {}): TlsSessionResult => ({
  policyDomain: "Example.TEST.",
  policyType: "sts",
  policyString: ["version: STSv1", "mode: testing", "mx: mx.example.test", "max_age: 86400"],
  mxHost: "mx.example.test",
  receivingIp: "192.0.2.1",
  sendingIp: "198.51.100.7",
  at,
  ...over,
});
const bad = (over: Partial<TlsSessionResult> = {}) => ok({ failure: { resultType: "certificate-host-mismatch", additionalInformation: "CN=other.test" }, ...over });

describe("the TLS-RPT session aggregate", () => {
  it("counts sessions per day and key; successes without addresses, failures with theirs", () => {
    const agg = createSessionAggregate(100, () => {});
    agg.add(ok());
    agg.add(ok({ receivingIp: "192.0.2.2" }));
    agg.add(bad());
    agg.add(bad());
    agg.add(bad({ receivingIp: "192.0.2.2" }));
    agg.add(ok({ at: at + 86_400_000 }));
    const rows = agg.take();
    expect(rows.map((r) => [r.day, r.policyDomain, r.resultType, r.receivingIp, r.count]).sort()).toEqual(
      [
        ["2026-12-01", "example.test", "", "", 2],
        ["2026-12-01", "example.test", "certificate-host-mismatch", "192.0.2.1", 2],
        ["2026-12-01", "example.test", "certificate-host-mismatch", "192.0.2.2", 1],
        ["2026-12-02", "example.test", "", "", 1],
      ].sort(),
    );
    expect(new Set(rows.map((r) => r.sessionKey)).size).toBe(4);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.sessionKey))).toBe(true);
    expect(agg.size).toBe(0);
  });

  it("the same key has the same digest across takes (the upsert's key)", () => {
    const agg = createSessionAggregate(100, () => {});
    agg.add(bad());
    const [first] = agg.take();
    agg.add(bad());
    const [second] = agg.take();
    expect(second!.sessionKey).toBe(first!.sessionKey);
  });

  it("keeps at most maxKeys keys; beyond, counts an overflow and tells once", () => {
    const told = vi.fn();
    const agg = createSessionAggregate(3, told);
    for (let i = 0; i < 10; i++) agg.add(bad({ mxHost: `mx${i}.example.test` }));
    agg.add(bad({ mxHost: "mx0.example.test" }));
    expect(agg.size).toBe(3);
    expect(agg.overflow).toBe(7);
    expect(told).toHaveBeenCalledTimes(1);
    expect(agg.take().find((r) => r.mxHost === "mx0.example.test")!.count).toBe(2);
  });

  it("merges back what a failed write gave back, within the cap", () => {
    const agg = createSessionAggregate(2, () => {});
    agg.add(ok());
    agg.add(bad());
    const taken = agg.take();
    agg.add(ok());
    agg.add(bad({ mxHost: "other.example.test" }));
    agg.giveBack(taken);
    const rows = agg.take();
    expect(rows.find((r) => r.resultType === "")!.count).toBe(2);
    expect(rows).toHaveLength(2);
    expect(agg.overflow).toBe(1);
  });

  it("bounds the strings of a key", () => {
    const k = keyOf(bad({ mxHost: "a".repeat(5000), policyString: Array(500).fill("x".repeat(5000)), failure: { resultType: "validation-failure", additionalInformation: "i".repeat(10_000) } }));
    expect(k.mxHost.length).toBe(KEY_BOUNDS.host);
    expect(k.policyString).toHaveLength(KEY_BOUNDS.policyLines);
    expect(k.policyString[0]!.length).toBe(KEY_BOUNDS.policyLine);
    expect(k.additionalInformation.length).toBe(KEY_BOUNDS.additionalInformation);
  });

  it("takes the UTC day of the session's time", () => {
    expect(utcDayOf(Date.UTC(2026, 11, 1, 23, 59, 59, 999))).toBe("2026-12-01");
    expect(utcDayOf(Date.UTC(2026, 11, 2, 0, 0, 0))).toBe("2026-12-02");
    expect(utcDayOf(Number.NaN)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe("the TLS-RPT session counter", () => {
  it("never throws into delivery, and a failed write keeps its counts for the next flush", async () => {
    let fail = true;
    const writes: unknown[][] = [];
    const db = {
      query: async (_text: string, values?: unknown[]) => {
        if (fail) throw new Error("database down");
        writes.push(values ?? []);
        return { rows: [], rowCount: 0 };
      },
    } as never;
    const counter = createTlsSessionCounter(db, { flushMs: 60_000 });
    counter.add(bad());
    counter.add(null as never);
    counter.add({ ...ok(), policyString: undefined } as never);
    await counter.flush();
    expect(counter.pendingKeys).toBe(2);
    fail = false;
    counter.add(bad());
    await counter.stop();
    expect(writes).toHaveLength(1);
    const rows = JSON.parse(writes[0]![0] as string) as { result_type: string; n: number }[];
    expect(rows.find((r) => r.result_type === "certificate-host-mismatch")!.n).toBe(2);
    counter.add(bad());
    expect(counter.pendingKeys).toBe(0);
  });
});
