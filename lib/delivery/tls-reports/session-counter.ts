import { createHash } from "node:crypto";
import type { Logger } from "../../logger";
import type { Queryable } from "../../storage/database";
import { upsertTlsSessionCounts, type TlsCountIncrement } from "../../storage/tls-report-rows";
import type { TlsSessionResult, TlsSessionSink } from "../tls-policy/tls-result";

/**
 * TLS-RPT's counter (RFC 8460, docs/adr/0328): delivery hands it every TLS
 * session towards a domain with a policy (`add`), it counts them in memory
 * per UTC day and report key, and adds the counts to tls_session_counts with
 * one upsert every `flushMs` and at stop. `add` is a map lookup: it never
 * throws, never waits and never touches the database. At most `maxKeys`
 * distinct keys wait for a flush; sessions of further keys are counted as
 * overflow (logged once), not stored.
 */

export interface TlsSessionCounter extends TlsSessionSink {
  /** Writes what is counted now (one statement); never throws. */
  flush(): Promise<void>;
  /** Stops the timer and flushes. */
  stop(): Promise<void>;
  /** Sessions not counted because the key cap was reached. */
  readonly overflow: number;
  /** Keys waiting for the next flush. */
  readonly pendingKeys: number;
}

export interface TlsSessionCounterOptions {
  flushMs?: number;
  maxKeys?: number;
  log?: Logger;
}

/** The bounds of what a key keeps: longer values are cut (they come from remote peers and policy files). */
export const KEY_BOUNDS = { host: 255, ip: 64, policyLines: 64, policyLine: 1000, additionalInformation: 1000 } as const;

const cut = (s: string | undefined, max: number) => (s ?? "").slice(0, max);
const hostOf = (s: string) => cut(s, KEY_BOUNDS.host + 1).trim().toLowerCase().replace(/\.$/, "").slice(0, KEY_BOUNDS.host);

/** The UTC day of a time in ms (now when it is not a usable time). */
export function utcDayOf(at: number): string {
  const d = new Date(Number.isFinite(at) ? at : Date.now());
  return (Number.isNaN(d.getTime()) ? new Date() : d).toISOString().slice(0, 10);
}

/** The increment row a result counts under (without its count and digest), its strings bounded. */
export function keyOf(result: TlsSessionResult): Omit<TlsCountIncrement, "count" | "sessionKey"> {
  return {
    day: utcDayOf(result.at),
    policyDomain: hostOf(result.policyDomain),
    policyType: result.policyType,
    policyString: (result.policyString ?? []).slice(0, KEY_BOUNDS.policyLines).map((l) => cut(l, KEY_BOUNDS.policyLine)),
    mxHost: hostOf(result.mxHost),
    resultType: result.failure?.resultType ?? "",
    receivingIp: result.failure ? cut(result.receivingIp, KEY_BOUNDS.ip) : "",
    sendingIp: result.failure ? cut(result.sendingIp, KEY_BOUNDS.ip) : "",
    additionalInformation: result.failure ? cut(result.failure.additionalInformation, KEY_BOUNDS.additionalInformation) : "",
  };
}

interface Pending {
  key: Omit<TlsCountIncrement, "count" | "sessionKey">;
  count: number;
}

/**
 * The counts only (no timer, no database): what the counter and its unit
 * test share. A success's key has no addresses nor information: RFC 8460
 * reports those of failures only.
 */
export function createSessionAggregate(maxKeys: number, onOverflow: () => void) {
  let pending = new Map<string, Pending>();
  let overflow = 0;
  return {
    add(result: TlsSessionResult): void {
      const key = keyOf(result);
      const text = JSON.stringify([key.day, key.policyDomain, key.policyType, key.policyString, key.mxHost, key.resultType, key.receivingIp, key.sendingIp, key.additionalInformation]);
      const entry = pending.get(text);
      if (entry) {
        entry.count++;
        return;
      }
      if (pending.size >= maxKeys) {
        if (overflow++ === 0) onOverflow();
        return;
      }
      pending.set(text, { key, count: 1 });
    },
    /** The counts so far as increments, the aggregate emptied. */
    take(): TlsCountIncrement[] {
      const taken = pending;
      pending = new Map();
      return [...taken].map(([text, p]) => ({ ...p.key, count: p.count, sessionKey: createHash("sha256").update(text).digest("hex") }));
    },
    /** Increments a failed write could not store, merged back within the cap. */
    giveBack(increments: TlsCountIncrement[]): void {
      for (const i of increments) {
        const { count, sessionKey: _digest, ...key } = i;
        const text = JSON.stringify([key.day, key.policyDomain, key.policyType, key.policyString, key.mxHost, key.resultType, key.receivingIp, key.sendingIp, key.additionalInformation]);
        const entry = pending.get(text);
        if (entry) entry.count += count;
        else if (pending.size < maxKeys) pending.set(text, { key, count });
        else overflow += count;
      }
    },
    get size() {
      return pending.size;
    },
    get overflow() {
      return overflow;
    },
  };
}

export function createTlsSessionCounter(database: Queryable, options: TlsSessionCounterOptions = {}): TlsSessionCounter {
  const flushMs = options.flushMs ?? 5000;
  const maxKeys = options.maxKeys ?? 10_000;
  const log = options.log;
  const aggregate = createSessionAggregate(maxKeys, () =>
    log?.warn({ maxKeys }, "TLS-RPT counter: more distinct session keys than it keeps between flushes; the further ones are not counted"),
  );
  let flushing: Promise<void> | undefined;
  let stopped = false;

  async function write(): Promise<void> {
    const increments = aggregate.take();
    if (increments.length === 0) return;
    try {
      await upsertTlsSessionCounts(database, increments);
    } catch (err) {
      // Kept for the next flush (a database outage loses nothing the cap keeps).
      aggregate.giveBack(increments);
      log?.warn({ err, keys: increments.length }, "TLS-RPT counter: the counts could not be written; kept for the next flush");
    }
  }

  function flush(): Promise<void> {
    // One write at a time: a flush asked for meanwhile waits for it, then writes what came since.
    const next = (flushing ?? Promise.resolve()).then(write);
    const mine = next.finally(() => {
      if (flushing === mine) flushing = undefined;
    });
    flushing = mine;
    return mine;
  }

  const timer = setInterval(() => {
    if (aggregate.size > 0 && !flushing) void flush();
  }, flushMs);
  timer.unref();

  return {
    add(result) {
      if (stopped) return;
      try {
        aggregate.add(result);
      } catch (err) {
        // A malformed result from delivery is dropped, never thrown back at the copy being sent.
        log?.debug({ err }, "TLS-RPT counter: a session result could not be counted");
      }
    },
    flush,
    async stop() {
      clearInterval(timer);
      stopped = true;
      await flush();
    },
    get overflow() {
      return aggregate.overflow;
    },
    get pendingKeys() {
      return aggregate.size;
    },
  };
}
