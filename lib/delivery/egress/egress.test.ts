import { afterEach, describe, expect, it } from "vitest";
import type { Queryable } from "../../storage/database";
import type { EgressAddressRow, EgressUsageRow } from "../../storage/egress-rows";
import { openEgress, type Egress } from "./egress";
import { parseWarmupSchedule } from "./warmup";

/** The statements egress.ts runs, answered from memory (the SQL itself is test/integration/egress-pools.test.ts's). */
function fakeDb(addresses: EgressAddressRow[], assignments: Record<string, string> = {}) {
  const usage: EgressUsageRow[] = [];
  let upserts = 0;
  const db = {
    async query(text: string, values: unknown[] = []) {
      if (text.includes("FROM egress_addresses")) {
        return { rows: addresses.map((a) => ({ address: a.address, ehlo_name: a.ehloName, pool: a.pool, warmup_from: a.warmupFrom, created_at: a.createdAt })) };
      }
      if (text.includes("FROM egress_assignments")) return { rows: Object.entries(assignments).map(([account_id, pool]) => ({ account_id, pool })) };
      if (text.includes("INSERT INTO egress_usage")) {
        upserts++;
        const [a, p, h, c] = values as [string[], string[], Date[], number[]];
        a.forEach((address, i) => usage.push({ address, provider: p[i]!, hour: h[i]!, copies: c[i]! }));
        return { rows: [] };
      }
      if (text.includes("FROM egress_usage")) return { rows: usage.filter((u) => u.hour >= (values[0] as Date)) };
      return { rows: [], rowCount: 0 };
    },
  } as unknown as Queryable;
  return { db, usage, upserts: () => upserts };
}

const now = Date.now();
const row = (address: string, pool: string, warmupFrom = new Date(now)): EgressAddressRow => ({ address, ehloName: `out-${address.replace(/\W/g, "-")}.example.com`, pool, warmupFrom, createdAt: warmupFrom });
const schedule = parseWarmupSchedule(JSON.stringify({ warmAfterDay: 30, default: [{ day: 1, daily: 3, hourly: 3 }] }));

describe("openEgress", () => {
  let egress: Egress | undefined;
  afterEach(async () => {
    await egress?.stop();
  });

  it("binds nothing when no address is declared, or for an account on an empty default pool", async () => {
    egress = await openEgress(fakeDb([]).db, { schedule, flushMs: 60_000 });
    expect(egress.choose("acct", "gmail", 4)).toBeUndefined();
    await egress.stop();
    egress = await openEgress(fakeDb([row("127.0.0.2", "solo")], { a: "solo" }).db, { schedule, flushMs: 60_000 });
    expect(egress.choose("other", "gmail", 4)).toBeUndefined();
    expect(egress.choose("a", "gmail", 4)).toMatchObject({ ok: true, address: "127.0.0.2", heloName: "out-127-0-0-2.example.com" });
  });

  it("counts copies in flight, so concurrent choices never pass a cap; an untried copy gives its place back", async () => {
    egress = await openEgress(fakeDb([row("127.0.0.2", "default")]).db, { schedule, flushMs: 60_000 });
    const picks = [1, 2, 3, 4].map(() => egress!.choose("a", "gmail", 4)!);
    expect(picks.map((p) => p.ok)).toEqual([true, true, true, false]);
    expect(picks[3]).toMatchObject({ reason: expect.stringMatching(/^Held: warm-up cap: 127\.0\.0\.2 reached its warm-up day-1 cap of 3 a day to gmail/) });
    const first = picks[0]!;
    if (first.ok) first.settle(false);
    expect(egress.choose("a", "gmail", 4)).toMatchObject({ ok: true });
    // Another provider has caps of its own.
    expect(egress.choose("a", "outlook", 4)).toMatchObject({ ok: true });
  });

  it("holds the mail of an assigned pool without an address of the MX's family", async () => {
    egress = await openEgress(fakeDb([row("2001:db8::7", "v6")], { a: "v6" }).db, { schedule, flushMs: 60_000 });
    expect(egress.choose("a", "gmail", 4)).toMatchObject({ ok: false, reason: "Held: egress pool v6 has no IPv4 address for gmail" });
    expect(egress.choose("a", "gmail", 6)).toMatchObject({ ok: true, address: "2001:db8::7" });
  });

  it("writes the tried copies in one upsert per flush and counts every process's read back", async () => {
    const fake = fakeDb([row("127.0.0.2", "default")]);
    egress = await openEgress(fake.db, { schedule, flushMs: 60_000 });
    const a = egress.choose("a", "gmail", 4)!;
    const b = egress.choose("a", "gmail", 4)!;
    if (a.ok) a.settle(true);
    if (b.ok) b.settle(true);
    await egress.sync();
    expect(fake.upserts()).toBe(1);
    expect(fake.usage).toEqual([{ address: "127.0.0.2", provider: "gmail", hour: expect.any(Date), copies: 2 }]);
    // Another process sent one more: read back at the next flush, the cap is reached.
    fake.usage.push({ address: "127.0.0.2", provider: "gmail", hour: fake.usage[0]!.hour, copies: 1 });
    const c = egress.choose("a", "gmail", 4)!;
    expect(c).toMatchObject({ ok: true });
    if (c.ok) c.settle(false);
    await egress.sync();
    expect(egress.choose("a", "gmail", 4)).toMatchObject({ ok: false, until: expect.any(Number) });
    expect(fake.upserts()).toBe(1);
  });
});

describe("usageProviderOf", () => {
  it("keeps a destination's key, and bounds a long one (many long MX host names) to a start and a hash", async () => {
    const { usageProviderOf, MAX_PROVIDER_LENGTH } = await import("./egress");
    expect(usageProviderOf("gmail")).toBe("gmail");
    const long = Array.from({ length: 16 }, (_, i) => `mx${i}.${"a".repeat(200)}.example`).join(",");
    const a = usageProviderOf(long);
    expect(a.length).toBe(MAX_PROVIDER_LENGTH);
    expect(a).toMatch(/^mx0\.a+#[0-9a-f]{16}$/);
    expect(usageProviderOf(`${long}x`)).not.toBe(a);
  });
});
