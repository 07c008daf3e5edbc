import { createLogger, type Logger } from "../../logger";
import { listenForWork, type Listener } from "../../queue/listen";
import type { Database, Queryable } from "../../storage/database";
import {
  deleteDestinationHolds,
  HOLDS_CHANNEL,
  selectHoldsInForce,
  upsertDestinationHold,
  type DestinationHoldRow,
  type HoldSource,
} from "../../storage/destination-hold-rows";

/**
 * Holds on destinations: while one lasts, the gate (gate.ts) lets no
 * connection be opened to its destination for the accounts it covers, and the
 * mail waits without spending delivery attempts. A hold names one of a
 * destination's keys (destinationKeysOf in destination.ts: a recipient domain,
 * a provider name or `relay`), optionally one account; an operator places one
 * (`mailroom queue suspend`, the dashboard's Queues page) or the back-off
 * does, on a suspension pattern (source `automatic`).
 */

export type { HoldSource };

/**
 * A hold in force: `key` a recipient domain, a provider name (`gmail`) or `relay`, lower case;
 * `accountId` null for every account's mail to the key; `until` null until resumed; `placedBy`
 * a staff email, `cli`, or `automatic`.
 */
export type Hold = DestinationHoldRow;

export interface NewHold {
  key: string;
  accountId?: string | null;
  until?: Date | null;
  reason?: string;
  source: HoldSource;
  placedBy: string;
}

const MAX_KEY_LENGTH = 1000;

/**
 * The key as stored: trimmed, lower case, without a final dot; undefined when
 * it cannot name a destination (empty, too long, or a character that no
 * domain, provider name, MX host set or `relay` has).
 */
export function normaliseHoldKey(raw: string): string | undefined {
  const key = raw.trim().toLowerCase().replace(/\.$/, "");
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return undefined;
  // Letters, digits, `.-_` of host names, `,` and `:` of an MX host set's key (bounded above: linear).
  if (!/^[a-z0-9._:,-]+$/.test(key)) return undefined;
  return key;
}

/** Places (or replaces) the hold on its key and account; the hold in force afterwards (an operator's stands against an automatic one). */
export async function placeHold(db: Queryable, hold: NewHold): Promise<Hold> {
  const key = normaliseHoldKey(hold.key);
  if (!key) throw new Error(`not a destination key: ${JSON.stringify(hold.key.slice(0, 100))}`);
  return upsertDestinationHold(db, {
    key,
    accountId: hold.accountId ?? null,
    until: hold.until ?? null,
    reason: (hold.reason ?? "").slice(0, 1000),
    source: hold.source,
    placedBy: hold.placedBy.slice(0, 320),
  });
}

/** Releases the key's hold of that account, or every hold on the key when no account is given; the holds released. */
export async function releaseHolds(db: Queryable, key: string, accountId?: string): Promise<Hold[]> {
  const normalised = normaliseHoldKey(key);
  if (!normalised) return [];
  return deleteDestinationHolds(db, normalised, accountId);
}

/** Every hold in force now, by key then account (every account's first). */
export async function listHolds(db: Queryable): Promise<Hold[]> {
  return selectHoldsInForce(db);
}

/**
 * The hold among `holds` that stops `accountId`'s mail to a destination with
 * these keys at `now`, if any: one on any of the keys, of every account or of
 * this one, not yet ended. Of several, the one lasting longest (until resumed first).
 */
export function matchHold(holds: readonly Hold[], keys: readonly string[], accountId: string, now: Date): Hold | undefined {
  let best: Hold | undefined;
  for (const hold of holds) {
    if (hold.accountId !== null && hold.accountId !== accountId) continue;
    if (hold.until !== null && hold.until.getTime() <= now.getTime()) continue;
    if (!keys.some((k) => k.toLowerCase() === hold.key)) continue;
    if (!best || lastsLonger(hold, best)) best = hold;
  }
  return best;
}

function lastsLonger(a: Hold, b: Hold): boolean {
  if (b.until === null) return false;
  return a.until === null || a.until.getTime() > b.until.getTime();
}

export interface HoldReader {
  /** The hold stopping this account's mail to a destination with these keys, from memory (no query). */
  holdFor(keys: string[], accountId: string): Hold | undefined;
  /** Every hold in force, as last loaded. */
  holds(): readonly Hold[];
  /** Reloads now (placeHold and releaseHolds announce themselves: readers reload on the announcement). */
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

export interface HoldReaderOptions {
  /** How often the holds are reloaded, whatever the announcements (default 2 s). */
  refreshMs?: number;
  log?: Logger;
  /** Whether to LISTEN for announcements on a connection of its own (default true when `db` has a URL). */
  listen?: boolean;
}

/**
 * Holds kept in memory for the delivery hot path: loaded at once, reloaded
 * every `refreshMs` and whenever a hold is placed or released in any process
 * (placeHold and releaseHolds NOTIFY HOLDS_CHANNEL, the reader LISTENs). A
 * failed reload keeps the last holds (logged): a database outage neither
 * releases nor invents a hold.
 */
export async function createHoldReader(db: Queryable & Partial<Pick<Database, "url">>, options: HoldReaderOptions = {}): Promise<HoldReader> {
  const refreshMs = options.refreshMs ?? 2000;
  let current: Hold[] = [];
  let loading: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const load = async (): Promise<void> => {
    if (loading) {
      // An announcement during a load: load once more after it, so the newest change is seen.
      again = true;
      return loading;
    }
    loading = (async () => {
      do {
        again = false;
        try {
          current = await listHolds(db);
        } catch (err) {
          options.log?.warn({ err }, "destination holds: reload failed; keeping the last ones");
        }
      } while (again && !stopped);
    })().finally(() => {
      loading = undefined;
    });
    return loading;
  };

  await load();
  const timer = setInterval(() => void load(), refreshMs);
  timer.unref();
  let listener: Listener | undefined;
  if (options.listen !== false && db.url) {
    const log = options.log ?? createLogger("silent");
    listener = await listenForWork(db.url, HOLDS_CHANNEL, () => void load(), log, { applicationName: "mailroom-holds" });
  }

  return {
    holdFor: (keys, accountId) => matchHold(current, keys, accountId, new Date()),
    holds: () => current,
    refresh: load,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await listener?.stop();
    },
  };
}
