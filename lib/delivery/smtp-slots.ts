/**
 * The slot accounting of delivery's SMTP pool (lib/delivery/smtp-client.ts),
 * pure: when a transaction may start, when one counts as stalled, and which
 * phase of an SMTP conversation may last how long (docs/adr/0321).
 *
 * A destination (host, port, TLS, user: one pool of connections) runs at most
 * `perDestination` transactions that count. A transaction that has made no
 * progress (no reply, no data written) for the stall time stops counting, so
 * the pool may open up to `stalledExtra` more connections beside a tarpit;
 * stalled ones past that count again.
 *
 * Every transaction holds one of the process's delivery job slots (`shared`).
 * A lane is what a transaction is for: a recipient domain at a destination
 * (behind a relay, one domain's verification may hang while others flow). A
 * lane is suspect while it has stalled transactions and none of its
 * transactions got an answer within the stall time; suspect lanes together
 * (running and waiting) never hold more than `total - reserve`: past that a
 * request is refused at once (deferred, retried later), so the last
 * `reserve` slots stay with the mail that is answered.
 *
 * A suspect lane's request over that share for a recipient not yet seen to
 * stall there is a *probe* (docs/adr/0325): it starts in the reserve, beside
 * the destination's count, at most `probeLimit` at once, and is given up when
 * it stalls before the end of its data (nothing of it can have been
 * accepted). So a fresh recipient of a domain whose other recipients hang
 * gets a transaction of its own while the stalled ones hold theirs, and
 * stalled transactions never hold the last free slots for longer than the
 * stall time. When every probe runs, a candidate waits in the probe line
 * (at most `probeLineLimit`, for two stall times), the newest message first:
 * the mail that arrived after a lane stalled is the likeliest to be answered,
 * while the unseen rest of the burst that stalled it is the likeliest to stall.
 */

export interface SlotLimits {
  /** Transactions that count against one destination at once (its connections, stalled extras aside). */
  perDestination: number;
  /** Stalled transactions of one destination that do not count (extra connections beside a tarpit). */
  stalledExtra: number;
  /** The budget all lanes share (the process's delivery job slots), and the part suspect lanes never take. */
  shared?: { total: number; reserve: number };
}

export interface SlotLoad {
  /** Transactions running that made progress within the stall time. */
  live: number;
  /** Transactions running that made none. */
  stalled: number;
  /** Requests waiting for a slot. */
  waiting: number;
  /** A lane's: one of its transactions ended with an answer of the peer within the stall time. */
  answeredRecently?: boolean;
}

/**
 * The process's budget when it runs `jobSlots` delivery jobs at once:
 * suspect lanes never hold the last quarter (at least one slot).
 */
export function sharedBudget(jobSlots: number): { total: number; reserve: number } {
  return { total: jobSlots, reserve: Math.max(1, Math.ceil(jobSlots / 4)) };
}

/** Transactions that count against the destination's `perDestination`. */
export function countedAgainst(limits: SlotLimits, destination: SlotLoad): number {
  return destination.live + Math.max(0, destination.stalled - limits.stalledExtra);
}

/** A lane whose transactions stall and none is answered: what it asks for comes out of the unreserved budget. */
export const isSuspect = (lane: SlotLoad): boolean => lane.stalled > 0 && !lane.answeredRecently;

/** Running and waiting transactions: each holds a delivery job slot. */
export const demandOf = (load: SlotLoad): number => load.live + load.stalled + load.waiting;

/** What suspect lanes together may hold. */
export function suspectShare(limits: SlotLimits): number {
  return limits.shared ? Math.max(1, limits.shared.total - limits.shared.reserve) : Number.POSITIVE_INFINITY;
}

export type Admission = "start" | "probe" | "probe line" | "wait" | "refuse";

/** Probes running at once, all lanes together: half the reserve (at least one), so answered mail keeps the other half. */
export function probeLimit(limits: SlotLimits): number {
  return limits.shared ? Math.max(1, Math.floor(limits.shared.reserve / 2)) : 0;
}

/** Requests waiting for a probe at once: half the probes (at least one), so probes and their line leave a quarter of the reserve to answered mail. */
export function probeLineLimit(limits: SlotLimits): number {
  return limits.shared ? Math.max(1, Math.floor(probeLimit(limits) / 2)) : 0;
}

/**
 * Where a probe candidate enters the probe line, whose waiters' acceptance
 * times are `line` (newest first), holding at most `limit`: its index, and
 * whether the oldest waiter must leave to make room (it is refused, as the
 * candidate is when it is older than every waiter of a full line).
 */
export function probeLineEntry(line: readonly number[], limit: number, acceptedAt: number): { index: number; evictOldest: boolean } | undefined {
  let index = line.findIndex((at) => at < acceptedAt);
  if (index === -1) index = line.length;
  if (line.length < limit) return { index, evictOldest: false };
  return index < line.length ? { index, evictOldest: true } : undefined;
}

/** Whether a request over the suspect share may run as a probe: its recipient has not stalled at the lane, and a probe is free. */
export interface ProbeState {
  recipientStalled: boolean;
  probesRunning: number;
}

/**
 * A new request for a slot at `destination` for `lane`, while the other
 * suspect lanes hold `otherSuspectDemand`: start now, start as a probe (over
 * the suspect share, beside the destination's count), wait for a probe in
 * the probe line, wait in the destination's line (accounts in turn), or be
 * refused at once.
 */
export function admit(limits: SlotLimits, destination: SlotLoad, lane: SlotLoad, otherSuspectDemand: number, probe?: ProbeState): Admission {
  if (limits.shared && isSuspect(lane) && otherSuspectDemand + demandOf(lane) >= suspectShare(limits)) {
    if (!probe || probe.recipientStalled) return "refuse";
    return probe.probesRunning < probeLimit(limits) ? "probe" : "probe line";
  }
  if (destination.waiting === 0 && countedAgainst(limits, destination) < limits.perDestination) return "start";
  return "wait";
}

/** The first waiter of a destination may start. */
export function waiterMayStart(limits: SlotLimits, destination: SlotLoad): boolean {
  return countedAgainst(limits, destination) < limits.perDestination;
}

/**
 * How many waiters each lane must give up (refused, deferred) so that
 * suspect lanes hold no more than their share; the lanes with the most
 * demand give up first. The answer is per index of `lanes`.
 */
export function waitersOverShare(limits: SlotLimits, lanes: SlotLoad[]): number[] {
  const refuse = lanes.map(() => 0);
  if (!limits.shared) return refuse;
  const suspects = lanes.map((lane, i) => ({ lane, i })).filter(({ lane }) => isSuspect(lane));
  let over = suspects.reduce((sum, { lane }) => sum + demandOf(lane), 0) - suspectShare(limits);
  while (over > 0) {
    let pick: { lane: SlotLoad; i: number } | undefined;
    for (const s of suspects) {
      if (s.lane.waiting - refuse[s.i]! <= 0) continue;
      if (!pick || demandOf(s.lane) - refuse[s.i]! > demandOf(pick.lane) - refuse[pick.i]!) pick = s;
    }
    if (!pick) break;
    refuse[pick.i]!++;
    over--;
  }
  return refuse;
}

/** The phases before the peer can have accepted anything of the message: a transaction stalled in one may be given up. */
export const mayGiveUpIn = (phase: SmtpPhase | "idle"): boolean => phase !== "end of data" && phase !== "QUIT" && phase !== "idle";

/** The reason recorded for a probe given up when it stalled (`lane`: its recipient domain). */
export function probeGivenUpReason(phase: SmtpPhase, stallAfterMs: number, lane: string): string {
  return `Not answered: no ${phase === "data block" ? "progress sending the message data" : `reply to ${phase}`} within ${formatDuration(stallAfterMs)} while other transactions for ${lane} stall; given up to keep delivery slots for mail that is answered`;
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
