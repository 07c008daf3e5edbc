import { readFile, stat } from "node:fs/promises";
import net from "node:net";
import type { Queryable } from "../../storage/database";
import {
  deleteEgressAddressRow,
  egressPoolExists,
  listEgressAddressRows,
  listEgressPoolRows,
  listEgressUsageRows,
  setEgressAssignmentRow,
  upsertEgressAddressRow,
  type EgressAddressRow,
  type EgressPoolRow,
} from "../../storage/egress-rows";
import { capsOn, dayStart, DEFAULT_WARMUP, hourStart, MAX_WARMUP_FILE_BYTES, parseWarmupSchedule, warmupDay, type WarmupSchedule } from "./warmup";

/**
 * The operator's side of egress addresses (docs/egress.md): declaring
 * addresses, assigning pools, and each address's volume against its warm-up
 * caps — what `mailroom egress` and the dashboard's egress page show.
 */

/** A refusal of the operator's input, said plainly. */
export class EgressError extends Error {}

/** The schedule of MAILROOM_WARMUP_FILE, else the default; a bad file throws with what is wrong. */
export async function loadWarmupSchedule(file: string | undefined): Promise<WarmupSchedule> {
  if (!file) return DEFAULT_WARMUP;
  const size = (await stat(file)).size;
  if (size > MAX_WARMUP_FILE_BYTES) throw new Error(`MAILROOM_WARMUP_FILE ${file}: ${size} bytes, at most ${MAX_WARMUP_FILE_BYTES}`);
  try {
    return parseWarmupSchedule(await readFile(file, "utf8"));
  } catch (err) {
    throw new Error(`MAILROOM_WARMUP_FILE ${file}: ${(err as Error).message}`);
  }
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** An EHLO name: a fully qualified host name (RFC 5321 §4.1.4), lowercased; else undefined. */
export function ehloNameOf(text: string): string | undefined {
  const name = text.trim().toLowerCase().replace(/\.$/, "");
  if (name.length < 3 || name.length > 253) return undefined;
  const labels = name.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) return undefined;
  return name;
}

const POOL = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function poolNameOf(text: string): string | undefined {
  const name = text.trim().toLowerCase();
  return POOL.test(name) ? name : undefined;
}

/** An address as stored: IPv4 dotted, IPv6 in its canonical form (what a socket's localAddress reports). */
export function egressAddressOf(text: string): string | undefined {
  const t = text.trim().replace(/^\[|\]$/g, "");
  if (t.length > 45) return undefined;
  const family = net.isIP(t);
  if (family === 4) return t;
  if (family === 6) {
    // Canonical text through the URL parser (compressed, lowercase).
    return new URL(`http://[${t}]/`).hostname.replace(/^\[|\]$/g, "");
  }
  return undefined;
}

/** Declares an address (or changes its EHLO name and pool); `warm`: no warm-up (an address that already sends). */
export async function addEgressAddress(q: Queryable, input: { address: string; ehlo: string; pool?: string; warm?: boolean }, schedule: WarmupSchedule = DEFAULT_WARMUP): Promise<EgressAddressRow> {
  const address = egressAddressOf(input.address);
  if (!address) throw new EgressError(`"${input.address.slice(0, 100)}" is not an IPv4 or IPv6 address`);
  const ehloName = ehloNameOf(input.ehlo);
  if (!ehloName) throw new EgressError(`--ehlo: "${input.ehlo.slice(0, 100)}" is not a fully qualified host name (it should be the address's PTR name)`);
  const pool = poolNameOf(input.pool ?? "default");
  if (!pool) throw new EgressError(`--pool: "${(input.pool ?? "").slice(0, 100)}" is not a pool name (lowercase letters, digits, - and _, at most 63)`);
  const warmupFrom = input.warm ? new Date(dayStart(Date.now()) - schedule.warmAfterDay * 24 * 60 * 60_000) : undefined;
  return upsertEgressAddressRow(q, { address, ehloName, pool, warmupFrom });
}

/** Removes an address: delivery stops binding to it within a flush interval (its copies in flight finish). */
export async function removeEgressAddress(q: Queryable, text: string): Promise<string> {
  const address = egressAddressOf(text);
  if (!address) throw new EgressError(`"${text.slice(0, 100)}" is not an IPv4 or IPv6 address`);
  if (!(await deleteEgressAddressRow(q, address))) throw new EgressError(`${address} is not an egress address`);
  return address;
}

/** Assigns the account to an existing pool (`default`: back to the default). */
export async function assignEgressPool(q: Queryable, accountId: string, poolText: string): Promise<string> {
  const pool = poolNameOf(poolText);
  if (!pool) throw new EgressError(`"${poolText.slice(0, 100)}" is not a pool name`);
  if (!(await egressPoolExists(q, pool))) throw new EgressError(`There is no egress pool ${pool}: add an address to it first (mailroom egress add ADDRESS --ehlo NAME --pool ${pool})`);
  await setEgressAssignmentRow(q, accountId, pool);
  return pool;
}

export interface ProviderVolume {
  provider: string;
  hour: number;
  day: number;
  /** null: no cap (warm). */
  hourlyCap: number | null;
  dailyCap: number | null;
}

export interface EgressAddressView {
  address: string;
  ehloName: string;
  pool: string;
  warmupDay: number;
  warm: boolean;
  /** The caps towards a provider without steps of its own, today. */
  caps: { hourly: number | null; daily: number | null };
  /** Today's volume per provider (most first). */
  providers: ProviderVolume[];
}

export interface EgressView {
  pools: EgressPoolRow[];
  addresses: EgressAddressView[];
}

const capOrNull = (n: number) => (Number.isFinite(n) ? n : null);

/** Each address with today's volume against its caps, per provider (the counts written so far: within a flush of now). */
export async function egressView(q: Queryable, schedule: WarmupSchedule, now = Date.now()): Promise<EgressView> {
  const [pools, rows, usage] = await Promise.all([listEgressPoolRows(q), listEgressAddressRows(q), listEgressUsageRows(q, new Date(dayStart(now)))]);
  const hour = hourStart(now);
  const addresses = rows.map((a): EgressAddressView => {
    const day = warmupDay(a.warmupFrom, now);
    const byProvider = new Map<string, { hour: number; day: number }>();
    for (const u of usage) {
      if (u.address !== a.address) continue;
      const v = byProvider.get(u.provider) ?? { hour: 0, day: 0 };
      v.day += u.copies;
      if (u.hour.getTime() === hour) v.hour += u.copies;
      byProvider.set(u.provider, v);
    }
    const base = capsOn(schedule, day, "");
    return {
      address: a.address,
      ehloName: a.ehloName,
      pool: a.pool,
      warmupDay: day,
      warm: day >= schedule.warmAfterDay,
      caps: { hourly: capOrNull(base.hourly), daily: capOrNull(base.daily) },
      providers: [...byProvider]
        .map(([provider, v]) => {
          const caps = capsOn(schedule, day, provider);
          return { provider, hour: v.hour, day: v.day, hourlyCap: capOrNull(caps.hourly), dailyCap: capOrNull(caps.daily) };
        })
        .sort((x, y) => y.day - x.day || x.provider.localeCompare(y.provider)),
    };
  });
  return { pools, addresses };
}
