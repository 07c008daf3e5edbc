/**
 * The slot accounting of delivery's SMTP pool (lib/delivery/smtp-client.ts),
 * pure: what a transaction waits for, when one counts as stalled, and which
 * phase of an SMTP conversation may last how long (docs/adr/0321).
 *
 * A destination (host, port, TLS, user) runs at most `perDestination`
 * transactions that count. A transaction that has made no progress (no reply,
 * no data written) for the stall time stops counting, so the pool may open up
 * to `stalledExtra` more connections beside a tarpit; stalled ones past that
 * count again. In direct-MX mode (`shared`) the destinations share the
 * process's budget (its delivery job slots): destinations with stalled
 * transactions, waiting ones included, never hold more than
 * `total - reserve` of it, so the last `reserve` slots stay with the
 * destinations that answer.
 */

export interface SlotLimits {
  /** Transactions that count against one destination at once (its connections, stalled extras aside). */
  perDestination: number;
  /** Stalled transactions of one destination that do not count (extra connections beside a tarpit). */
  stalledExtra: number;
  /** Direct-MX mode: the budget all destinations share, and the part of it stalled destinations never take. */
  shared?: { total: number; reserve: number };
}

export interface DestinationLoad {
  /** Transactions running that made progress within the stall time. */
  live: number;
  /** Transactions running that made none. */
  stalled: number;
  /** Requests waiting for a slot. */
  waiting: number;
}

/** Transactions that count against the destination's `perDestination`. */
export function countedAgainst(limits: SlotLimits, load: DestinationLoad): number {
  return load.live + Math.max(0, load.stalled - limits.stalledExtra);
}

/**
 * The direct-MX budget of a process running `jobSlots` delivery jobs at once:
 * destinations with stalled transactions never hold the last quarter (at
 * least one slot).
 */
export function sharedBudget(jobSlots: number): { total: number; reserve: number } {
  return { total: jobSlots, reserve: Math.max(1, Math.ceil(jobSlots / 4)) };
}

/** A destination with a stalled transaction: its demand comes out of the shared budget's unreserved part. */
export const isSuspect = (load: DestinationLoad): boolean => load.stalled > 0;

/** Running and waiting transactions of a destination: each holds its delivery job slot. */
export const demandOf = (load: DestinationLoad): number => load.live + load.stalled + load.waiting;

/** What suspect destinations together may hold in direct-MX mode. */
export function suspectShare(limits: SlotLimits): number {
  return limits.shared ? Math.max(1, limits.shared.total - limits.shared.reserve) : Number.POSITIVE_INFINITY;
}

export type Admission = "start" | "wait" | "refuse";

/**
 * A new request for a slot at a destination with `load`, while suspect
 * destinations other than this one hold `suspectDemandElsewhere`: start now,
 * wait in line (first come, first served), or be refused at once (deferred).
 */
export function admit(limits: SlotLimits, load: DestinationLoad, suspectDemandElsewhere: number): Admission {
  if (limits.shared && isSuspect(load) && suspectDemandElsewhere + demandOf(load) >= suspectShare(limits)) return "refuse";
  if (load.waiting === 0 && countedAgainst(limits, load) < limits.perDestination) return "start";
  return "wait";
}

/** The first waiter of a destination may start. */
export function waiterMayStart(limits: SlotLimits, load: DestinationLoad): boolean {
  return countedAgainst(limits, load) < limits.perDestination;
}

/**
 * Direct-MX mode: how many waiters each destination must give up (refused,
 * deferred) so that suspect destinations hold no more than their share; the
 * destinations with the most demand give up first. `loads` in any order; the
 * answer is per index.
 */
export function waitersOverShare(limits: SlotLimits, loads: DestinationLoad[]): number[] {
  const refuse = loads.map(() => 0);
  if (!limits.shared) return refuse;
  const share = suspectShare(limits);
  const suspects = loads.map((load, i) => ({ load, i })).filter(({ load }) => isSuspect(load) && load.waiting > 0);
  let over = loads.filter(isSuspect).reduce((sum, load) => sum + demandOf(load), 0) - share;
  while (over > 0) {
    let pick: { load: DestinationLoad; i: number } | undefined;
    for (const s of suspects) {
      if (s.load.waiting - refuse[s.i]! <= 0) continue;
      if (!pick || demandOf(s.load) - refuse[s.i]! > demandOf(pick.load) - refuse[pick.i]!) pick = s;
    }
    if (!pick) break;
    refuse[pick.i]!++;
    over--;
  }
  return refuse;
}

/** The phases of a client's SMTP conversation that have a time limit. */
export type SmtpPhase = "connect" | "greeting" | "EHLO" | "STARTTLS" | "AUTH" | "MAIL" | "RCPT" | "DATA" | "data block" | "end of data" | "QUIT";

/** Per-phase limits (ms): RFC 5321 §4.5.3.2 for a remote MX, shorter ones for a relay the operator runs. */
export interface SmtpTimeouts {
  /** TCP connection. */
  connectMs: number;
  /** The 220 greeting, and the replies before MAIL (EHLO, STARTTLS and its handshake, AUTH). */
  greetingMs: number;
  mailMs: number;
  rcptMs: number;
  /** The 354 reply to DATA. */
  dataMs: number;
  /** Each block of message data handed to the connection (no progress writing for this long). */
  dataBlockMs: number;
  /** The reply to the final dot. */
  dataEndMs: number;
}

/** RFC 5321 §4.5.3.2 (connect: the initial 220's 5 minutes). */
export const RFC5321_TIMEOUTS: SmtpTimeouts = {
  connectMs: 5 * 60_000,
  greetingMs: 5 * 60_000,
  mailMs: 5 * 60_000,
  rcptMs: 5 * 60_000,
  dataMs: 2 * 60_000,
  dataBlockMs: 3 * 60_000,
  dataEndMs: 10 * 60_000,
};

/** A QUIT the peer never answers: the socket is dropped after this. */
export const QUIT_TIMEOUT_MS = 10_000;

export function phaseLimitMs(phase: SmtpPhase, t: SmtpTimeouts): number {
  switch (phase) {
    case "connect":
      return t.connectMs;
    case "greeting":
    case "EHLO":
    case "STARTTLS":
    case "AUTH":
      return t.greetingMs;
    case "MAIL":
      return t.mailMs;
    case "RCPT":
      return t.rcptMs;
    case "DATA":
      return t.dataMs;
    case "data block":
      return t.dataBlockMs;
    case "end of data":
      return t.dataEndMs;
    case "QUIT":
      return QUIT_TIMEOUT_MS;
  }
}

/** The phase a command written by the client starts (its reply is what is awaited). */
export function phaseOfCommand(command: string): SmtpPhase {
  const verb = /^[A-Za-z]+/.exec(command)?.[0]?.toUpperCase() ?? "";
  if (verb === "MAIL") return "MAIL";
  if (verb === "RCPT") return "RCPT";
  if (verb === "DATA") return "DATA";
  if (verb === "STARTTLS") return "STARTTLS";
  if (verb === "QUIT") return "QUIT";
  if (verb === "EHLO" || verb === "HELO" || verb === "LHLO") return "EHLO";
  // AUTH and its continuation lines (base64 answers), RSET, NOOP: setup-time replies.
  return "AUTH";
}

/** 250ms, 30s, 1.5s, 5m, 2h. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000 || ms % 60_000 !== 0) return `${Number((ms / 1000).toFixed(1))}s`;
  if (ms < 3_600_000 || ms % 3_600_000 !== 0) return `${ms / 60_000}m`;
  return `${ms / 3_600_000}h`;
}

/** The reason recorded for a recipient whose transaction ran out of time in `phase`. */
export function timeoutReason(phase: SmtpPhase, limitMs: number): string {
  const after = formatDuration(limitMs);
  switch (phase) {
    case "connect":
      return `Timeout connecting (no connection after ${after})`;
    case "greeting":
      return `Timeout waiting for the greeting (no answer after ${after})`;
    case "data block":
      return `Timeout sending the message data (no progress for ${after})`;
    case "end of data":
      return `Timeout waiting for the reply to the end of data (no answer after ${after})`;
    case "AUTH":
      return `Timeout waiting for AUTH reply (no answer after ${after})`;
    default:
      return `Timeout waiting for ${phase} reply (no answer after ${after})`;
  }
}
