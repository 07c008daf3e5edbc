import { createHash } from "node:crypto";
import net from "node:net";
import type { Logger } from "../../logger";
import type { Queryable } from "../../storage/database";
import { isRowDataError } from "../../storage/sqlstate";
import {
  addEgressUsageRows,
  listEgressAddressRows,
  listEgressAssignmentRows,
  listEgressUsageRows,
  type EgressAddressRow,
  type EgressUsageRow,
} from "../../storage/egress-rows";
import { chooseAddress } from "./choose";
import { dayStart, hourStart, type WarmupSchedule } from "./warmup";

/**
 * Egress addresses at delivery time (docs/egress.md, docs/adr/0327): which
 * source address (and EHLO name) a copy to a provider goes from, and the
 * warm-up counts every delivering process shares.
 *
 * Counting without a write per copy: a copy is counted in this process when
 * its address is chosen (in flight) and kept when a transaction began on it
 * (`settle(true)`); every `flushMs` the kept counts are added to egress_usage
 * in one upsert, and today's totals of every process are read back. A cap is
 * checked against those totals + this process's counts not yet read back +
 * its copies in flight. So an address overshoots a cap by at most what the
 * other processes sent to that provider from it within one flush interval
 * (plus their copies in flight), never by what this process sends.
 */

export interface EgressSource {
  address: string;
  heloName: string;
}

export type EgressPick =
  | (EgressSource & { ok: true; settle(tried: boolean): void })
  | { ok: false; until: number; reason: string };

export interface Egress {
  /**
   * The source of a copy of `accountId` to a destination (its key: the provider warm-up caps count by), connecting to an
   * address of IP `family`; undefined when it is not bound (no egress address at all, or the
   * account's pool is `default` and that has none): the kernel picks, with the global EHLO name.
   */
  choose(accountId: string, destinationKey: string, family: number, now?: number): EgressPick | undefined;
  /** Writes the counts kept and reads back every process's (and the addresses and assignments). */
  sync(): Promise<void>;
  stop(): Promise<void>;
}

type Hours = Map<number, number>;
const keyOf = (address: string, provider: string) => `${address}\n${provider}`;

/** Counted under: a destination's key (up to 16 MX host names) within egress_usage's 1000 characters, a long one as its start and a hash. */
export const MAX_PROVIDER_LENGTH = 200;
export function usageProviderOf(key: string): string {
  if (key.length <= MAX_PROVIDER_LENGTH) return key;
  return `${key.slice(0, MAX_PROVIDER_LENGTH - 17)}#${createHash("sha256").update(key).digest("hex").slice(0, 16)}`;
}

function add(map: Map<string, Hours>, key: string, hour: number, n: number): void {
  let hours = map.get(key);
  if (!hours) map.set(key, (hours = new Map()));
  hours.set(hour, (hours.get(hour) ?? 0) + n);
}

function sumOf(map: Map<string, Hours>, key: string, hour: number, day: number): { hour: number; day: number } {
  const hours = map.get(key);
  if (!hours) return { hour: 0, day: 0 };
  let h = 0;
  let d = 0;
  for (const [at, n] of hours) {
    if (at === hour) h += n;
    if (at >= day) d += n;
  }
  return { hour: h, day: d };
}

const rowsOf = (map: Map<string, Hours>): EgressUsageRow[] =>
  [...map].flatMap(([key, hours]) => {
    const [address, provider] = key.split("\n") as [string, string];
    return [...hours].map(([hour, copies]) => ({ address, provider, hour: new Date(hour), copies }));
  });

export interface EgressOptions {
  schedule: WarmupSchedule;
  /** How often counts are written and read back (default 2 s). */
  flushMs?: number;
  log?: Logger;
}

/** The egress state of a process, loaded once before delivery starts, then kept in step every `flushMs`. */
export async function openEgress(db: Queryable, options: EgressOptions): Promise<Egress> {
  const flushMs = options.flushMs ?? 2000;
  let addresses: EgressAddressRow[] = [];
  let byPool = new Map<string, EgressAddressRow[]>();
  let assignments = new Map<string, string>();
  /** Every process's counts of today, as last read. */
  let shared = new Map<string, Hours>();
  /** This process's counts not yet written; and those being written (counted until read back). */
  let kept = new Map<string, Hours>();
  let writing = new Map<string, Hours>();
  /** Written, not yet read back (a read failed after the write). */
  let written = new Map<string, Hours>();
  const inFlight = new Map<string, number>();
  let prunedHour = 0;

  async function reload(now: number): Promise<void> {
    const [rows, assigned, usage] = await Promise.all([listEgressAddressRows(db), listEgressAssignmentRows(db), listEgressUsageRows(db, new Date(dayStart(now)))]);
    addresses = rows;
    byPool = new Map();
    for (const a of rows) byPool.set(a.pool, [...(byPool.get(a.pool) ?? []), a]);
    assignments = assigned;
    const next = new Map<string, Hours>();
    for (const u of usage) add(next, keyOf(u.address, u.provider), u.hour.getTime(), u.copies);
    shared = next;
  }

  let syncing: Promise<void> | undefined;
  async function syncOnce(): Promise<void> {
    const now = Date.now();
    writing = kept;
    kept = new Map();
    try {
      const prune = hourStart(now) !== prunedHour ? new Date(dayStart(now) - 2 * 24 * 60 * 60_000) : undefined;
      await addEgressUsageRows(db, rowsOf(writing), prune);
      if (prune) prunedHour = hourStart(now);
    } catch (err) {
      // Not written: kept for the next flush, unless its data was refused (it would be refused again).
      if (!isRowDataError(err)) for (const [key, hours] of writing) for (const [hour, n] of hours) add(kept, key, hour, n);
      writing = new Map();
      throw err;
    }
    for (const [key, hours] of writing) for (const [hour, n] of hours) add(written, key, hour, n);
    writing = new Map();
    await reload(now);
    // Read back: the rows hold them.
    written = new Map();
  }
  const sync = (): Promise<void> => (syncing ??= syncOnce().finally(() => (syncing = undefined)));

  await reload(Date.now());
  const timer = setInterval(() => {
    sync().catch((err: Error) => options.log?.warn({ err }, "egress usage flush failed; retried at the next"));
  }, flushMs);
  timer.unref();

  function used(key: string, now: number): { hour: number; day: number } {
    const h = hourStart(now);
    const d = dayStart(now);
    const a = sumOf(shared, key, h, d);
    const b = sumOf(kept, key, h, d);
    const c = sumOf(writing, key, h, d);
    const w = sumOf(written, key, h, d);
    const f = inFlight.get(key) ?? 0;
    return { hour: a.hour + b.hour + c.hour + w.hour + f, day: a.day + b.day + c.day + w.day + f };
  }

  return {
    choose(accountId, destinationKey, family, now = Date.now()) {
      if (addresses.length === 0) return undefined;
      const provider = usageProviderOf(destinationKey);
      const pool = assignments.get(accountId) ?? "default";
      const members = byPool.get(pool) ?? [];
      if (members.length === 0 && pool === "default") return undefined;
      const usable = members.filter((a) => net.isIP(a.address) === family);
      const candidates = usable.map((a) => ({ address: a.address, warmupFrom: a.warmupFrom, ...used(keyOf(a.address, provider), now) }));
      const choice = chooseAddress(candidates, provider, options.schedule, now);
      if (!choice.ok) {
        const reason = members.length > 0 && usable.length === 0 ? `Held: egress pool ${pool} has no IPv${family} address for ${provider}` : choice.reason;
        return { ok: false, until: choice.until, reason };
      }
      const source = members.find((a) => a.address === choice.address)!;
      const key = keyOf(source.address, provider);
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      let settled = false;
      return {
        ok: true,
        address: source.address,
        heloName: source.ehloName,
        settle(tried) {
          if (settled) return;
          settled = true;
          const n = (inFlight.get(key) ?? 1) - 1;
          if (n > 0) inFlight.set(key, n);
          else inFlight.delete(key);
          if (tried) add(kept, key, hourStart(Date.now()), 1);
        },
      };
    },
    sync,
    async stop() {
      clearInterval(timer);
      await sync().catch((err: Error) => options.log?.warn({ err }, "egress usage's last flush failed"));
    },
  };
}
