import { Gauge, type Registry } from "prom-client";
import type { Logger } from "../../logger";
import type { SmtpAnswer } from "../classify";
import { AcceptedLastMinute, complain, relax, throttleEndsAt, type BackOffOptions, type Throttle } from "./back-off";
import type { Destination } from "./destination";
import type { Hold, NewHold } from "./holds";
import { ConnectionRate } from "./connection-rate";
import { RateLimiter } from "./rate-limiter";
import { replySignalOf } from "./reply-signals";
import { ruleFor, type ShapingRule, type ShapingRules } from "./shaping-rules";

/**
 * The gate of a worker process's transport: "may this destination be tried
 * now for this account?", asked before a connection is opened (docs/adr/0324).
 * No, when a hold covers it (holds.ts, from memory), when its shaping rule's
 * rates or connections are spent, or when a throttle of the back-off has
 * lowered them; then the answer says until when and why, and the copy is
 * deferred without spending an attempt (classify.ts `heldUntil`). A short
 * wait (up to `maxWaitMs`) is waited here instead. Replies are fed back
 * (`observe`): a rate complaint throttles, a suspension pattern places an
 * automatic hold. An admitted copy carries the rule's connection members
 * (CopyShape) to the SMTP client, which alone knows when a connection is
 * new or reused. Counts are this process's own.
 */

/** What a copy admitted to a destination must keep to on its connection (the rule's members the SMTP client applies). */
export interface CopyShape {
  requireTls?: boolean;
  messagesPerConnection?: number;
  /** Asked before a new connection is opened (connection-rate.ts); absent: no limit. */
  openRate?: { tryOpen(now: number): number };
}

/** A throttle of a destination as one recipient domain's reply set it, and when it ends without another complaint. */
export interface ThrottleNotice {
  key: string;
  domain: string;
  throttle: Throttle;
  endsAt: number;
}

/** Recipient domains a throttle is told of, at most, per destination and change (a provider hosts millions). */
const MAX_THROTTLE_DOMAINS = 1_000;

export type Admission = { ok: true; shape: CopyShape; release(): void } | { ok: false; until: number; reason: string };

export interface GateOptions {
  holds: { holdFor(keys: string[], accountId: string): Hold | undefined };
  /** The rules in force (re-read by shaping-file.ts). */
  rules: () => ShapingRules;
  /** Places an automatic hold (holds.ts placeHold on the database). */
  placeHold?: (hold: NewHold) => Promise<unknown>;
  /** A throttle was set or lowered, or another recipient domain's reply complained of it (for queue list: lib/storage/destination-throttle-rows.ts). */
  onThrottle?: (t: ThrottleNotice) => void;
  suspendMs: number;
  /** The longest wait for a free moment inside the gate; past it the copy is deferred (default 1 s). */
  maxWaitMs?: number;
  /** When a hold without an end is asked about again (default 10 min; a resume makes the mail due at once). */
  openHoldRecheckMs?: number;
  backOff?: BackOffOptions;
  log?: Logger;
  registry?: Registry;
  now?: () => number;
}

interface DestinationState {
  limiter: RateLimiter;
  /** New connections of the last minute (the rule's connectionsPerMinute). */
  opens: ConnectionRate;
  inFlight: number;
  throttle?: Throttle;
  /** The recipient domains the current throttle was told of (onThrottle). */
  throttleTold: Set<string>;
  accepted: AcceptedLastMinute;
  /** The rule the limiter was set from (reset when the rules change). */
  rule?: ShapingRule;
  /** Local suspension until the hold placed for it is read back. */
  suspendedUntil: number;
}

export type DestinationStateName = "normal" | "throttled" | "suspended";

export class DestinationGate {
  private states = new Map<string, DestinationState>();
  private readonly now: () => number;

  constructor(private readonly options: GateOptions) {
    this.now = options.now ?? Date.now;
    if (options.registry) {
      const stateNames = () => this.stateNames();
      new Gauge({
        name: "mailroom_destination_state",
        help: "Destinations this worker process holds back: 1 per destination and state (throttled, suspended)",
        labelNames: ["destination", "state"] as const,
        registers: [options.registry],
        collect() {
          this.reset();
          for (const [key, state] of stateNames()) if (state !== "normal") this.set({ destination: key, state }, 1);
        },
      });
    }
  }

  /** Whether `accountId`'s copy to this destination may be sent now; when it may, `release` must be called once it is done. */
  async admit(keys: string[], destination: Destination, accountId: string): Promise<Admission> {
    const now = this.now();
    const hold = this.options.holds.holdFor(keys, accountId);
    if (hold) {
      const until = hold.until ? hold.until.getTime() : now + (this.options.openHoldRecheckMs ?? 600_000);
      return { ok: false, until, reason: holdReason(hold) };
    }
    const state = this.stateOf(destination.key, keys);
    if (state.suspendedUntil > now) return { ok: false, until: state.suspendedUntil, reason: `Held: ${destination.key} is suspended` };
    const limits = this.limitsOf(state, now);
    const maxWait = this.options.maxWaitMs ?? 1000;
    const wait = Math.max(state.limiter.waitMs(now), state.inFlight >= limits.connections ? 1 : 0);
    if (wait > maxWait) return { ok: false, until: state.limiter.reserve(now, accountId), reason: this.throttleReason(destination.key, state) };
    if (wait > 0) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, maxWait)));
      if (state.inFlight >= limits.connections || state.limiter.waitMs(this.now()) > 0) {
        return { ok: false, until: state.limiter.reserve(this.now(), accountId), reason: this.throttleReason(destination.key, state) };
      }
    }
    state.limiter.take(this.now());
    state.inFlight++;
    let released = false;
    const rule = state.rule ?? {};
    return {
      ok: true,
      shape: { requireTls: rule.requireTls, messagesPerConnection: rule.messagesPerConnection, openRate: rule.connectionsPerMinute ? state.opens : undefined },
      release: () => {
        if (!released) state.inFlight--;
        released = true;
      },
    };
  }

  /** What a reply tells of the destination: counted, and a complaint throttles or suspends it. */
  observe(keys: string[], destination: Destination, answer: SmtpAnswer): void {
    const now = this.now();
    const state = this.stateOf(destination.key, keys);
    const code = answer.responseCode ?? 0;
    if (code >= 200 && code < 300) state.accepted.add(now);
    const signal = replySignalOf(answer);
    if (!signal) return;
    const reason = (answer.response ?? "").slice(0, 200);
    if (signal === "throttle") {
      const before = state.throttle;
      state.throttle = complain(relax(state.throttle, now, this.options.backOff), { now, acceptedLastMinute: state.accepted.count(now), connectionsInUse: state.inFlight, reason }, this.options.backOff);
      if (before?.perMinute !== state.throttle.perMinute) {
        this.options.log?.warn({ destination: destination.key, perMinute: state.throttle.perMinute, connections: state.throttle.connections, reply: reason }, "destination throttled");
        state.throttleTold.clear();
      }
      this.tellThrottle(destination.key, keys[0] ?? destination.key, state);
      this.limitsOf(state, now);
      return;
    }
    if (state.suspendedUntil > now) return;
    const until = now + this.options.suspendMs;
    state.suspendedUntil = until;
    this.options.log?.warn({ destination: destination.key, until: new Date(until).toISOString(), reply: reason }, "destination suspended: its reply says our mail is refused there");
    // Once the hold is placed (and read back), it decides: a resume releases it for every process.
    void this.options
      .placeHold?.({ key: destination.key, until: new Date(until), reason, source: "automatic", placedBy: "automatic" })
      .then(() => {
        state.suspendedUntil = 0;
      })
      .catch((err: unknown) => this.options.log?.warn({ err, destination: destination.key }, "the automatic hold could not be placed; suspended in this process only"));
  }

  private tellThrottle(key: string, domain: string, state: DestinationState): void {
    const throttle = state.throttle;
    if (!throttle || !this.options.onThrottle || state.throttleTold.has(domain) || state.throttleTold.size >= MAX_THROTTLE_DOMAINS) return;
    state.throttleTold.add(domain);
    this.options.onThrottle({ key, domain, throttle, endsAt: throttleEndsAt(throttle, this.options.backOff) });
  }

  /** Until when this process holds the destination suspended (0: it does not). */
  suspendedUntil(key: string): number {
    return this.states.get(key)?.suspendedUntil ?? 0;
  }

  /** Each destination this process knows and its state (the metric, the Queues page). */
  stateNames(): [string, DestinationStateName][] {
    const now = this.now();
    return [...this.states].map(([key, s]) => [
      key,
      s.suspendedUntil > now || this.options.holds.holdFor([key], "") ? "suspended" : relax(s.throttle, now, this.options.backOff) ? "throttled" : "normal",
    ]);
  }

  private stateOf(key: string, keys: string[]): DestinationState {
    let state = this.states.get(key);
    if (!state) {
      state = { limiter: new RateLimiter(), opens: new ConnectionRate(undefined), inFlight: 0, throttleTold: new Set(), accepted: new AcceptedLastMinute(), suspendedUntil: 0 };
      this.states.set(key, state);
    }
    const rule = ruleFor(this.options.rules(), keys);
    if (state.rule === undefined || JSON.stringify(state.rule) !== JSON.stringify(rule)) {
      state.rule = rule;
      this.applyLimits(state);
    }
    return state;
  }

  /** The connections allowed now, after the limiter was set from the rule and the throttle at `now`. */
  private limitsOf(state: DestinationState, now: number): { connections: number } {
    const relaxed = relax(state.throttle, now, this.options.backOff);
    if (relaxed !== state.throttle) {
      state.throttle = relaxed;
      this.applyLimits(state);
    } else if (relaxed) this.applyLimits(state);
    return { connections: Math.min(state.rule?.maxConnections ?? Number.POSITIVE_INFINITY, state.throttle?.connections ?? Number.POSITIVE_INFINITY) };
  }

  private applyLimits(state: DestinationState): void {
    const rule = state.rule ?? {};
    const t = state.throttle;
    state.opens.setLimit(rule.connectionsPerMinute);
    const perMinute = t ? Math.min(rule.messagesPerMinute ?? Number.POSITIVE_INFINITY, t.perMinute) : rule.messagesPerMinute;
    // A throttle spaces every message evenly (no burst): the destination has just said it had too many.
    state.limiter.setLimits({ perSecond: rule.messagesPerSecond, perMinute, perHour: rule.messagesPerHour, burst: t ? 0 : undefined });
  }

  private throttleReason(key: string, state: DestinationState): string {
    if (state.throttle) return `Throttled: ${key} asked for a lower rate (${state.throttle.perMinute}/min now): ${state.throttle.reason}`;
    return `Throttled: ${key}'s shaping rule (rate or connections) is spent for now`;
  }
}

function holdReason(hold: Hold): string {
  const by = hold.source === "automatic" ? "suspended automatically" : `suspended by ${hold.placedBy}`;
  const until = hold.until ? ` until ${hold.until.toISOString()}` : " until resumed";
  return `Held: ${hold.key} ${by}${until}${hold.reason ? `: ${hold.reason}` : ""}`.slice(0, 500);
}
