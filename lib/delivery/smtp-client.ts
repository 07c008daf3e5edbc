import type SMTPConnection from "nodemailer/lib/smtp-connection";
import type { Logger } from "../logger";
import type { SmtpAnswer } from "./classify";
import { enterPhase, openConnection, quitConnection, retireConnection, type Connection, type ConnectionUse, type OpenOptions, type SmtpError, type SmtpTarget } from "./smtp-connection";
import type { TlsVerdict } from "./tls-policy/tls-result";
import {
  backstopMs,
  destinationIsEmpty,
  destinationKey,
  destinationLoad,
  countAccount,
  endSlot,
  hasStalled,
  laneIsUnused,
  laneLoad,
  newDestination,
  newLane,
  nextWaiterIndex,
  overShareError,
  rememberStalled,
  setStalled,
  slotWaitError,
  stoppingError,
  takeExpiredIdle,
  takeExpiredProbeWaiters,
  takeExpiredWaiters,
  takeIdle,
  takeNewestWaiters,
  tickIntervalMs,
  type Destination,
  type Lane,
  type ProbeWaiter,
  type Slot,
  type Waiter,
} from "./smtp-pool";
import {
  admit,
  demandOf,
  isSuspect,
  mayGiveUpIn,
  phaseLimitMs,
  probeGivenUpReason,
  probeLimit,
  probeLineEntry,
  probeLineLimit,
  RFC5321_TIMEOUTS,
  suspectShare,
  waiterMayStart,
  waitersOverShare,
  type SlotLimits,
  type SmtpPhase,
  type SmtpTimeouts,
} from "./smtp-slots";
import {
  answerOfFailure,
  answerOfNotTried,
  answerOfSent,
  laneOfRecipient,
  mayResendOnFreshConnection,
  runTransaction,
  wasAnswered,
  type Envelope,
} from "./smtp-transaction";

/**
 * Pooled SMTP client connections: nodemailer's SMTPConnection (the protocol:
 * EHLO, STARTTLS or implicit TLS, AUTH, MAIL/RCPT/DATA, dot-stuffing) over
 * sockets with Nagle disabled (smtp-connection.ts). The pool is ours, not
 * nodemailer's (docs/adr/0023): its Mailer layer (MimeNode, plugins,
 * streams) took half of the client's CPU per message for bytes that are
 * already a message. Its parts: one connection (smtp-connection.ts), one
 * transaction (smtp-transaction.ts), the pool's counts (smtp-pool.ts) and
 * when a request may start (smtp-slots.ts).
 *
 * Degrade, never stall (docs/adr/0321): every phase of the conversation has
 * its own time limit (smtp-slots.ts, RFC 5321 §4.5.3.2 towards remote MXs),
 * and a transaction that runs out of it is an answer (a deferral naming the
 * phase), never sent again at once. Per destination (host, port, TLS, user)
 * at most `maxConnections` transactions count at once; one that has made no
 * progress for `stallAfterMs` stops counting, so mail keeps flowing past a
 * tarpit on a bounded number of extra connections. A request waits for a
 * slot at most `slotWaitMs`, and is then deferred. Idle connections are
 * reused, and closed after `idleCloseMs`. A connection that failed a
 * transaction is closed (its state after an error is unknown). Only a
 * reused connection the peer closed before answering the transaction's first
 * command is replaced at once (the message goes out on a fresh one): nothing
 * of it can have been accepted.
 */

export interface SmtpClientOptions {
  heloName: string;
  /** Transactions that count against one destination at once. */
  maxConnections: number;
  /** Per-phase limits; unset ones are RFC 5321's. */
  timeouts?: Partial<SmtpTimeouts>;
  /** A transaction without progress (reply, data written) this long stops counting against its destination (default 30 s). */
  stallAfterMs?: number;
  /** Stalled transactions of a destination that do not count (default `maxConnections`). */
  stalledExtra?: number;
  /** Longest wait for a slot before the request is deferred (default 60 s). */
  slotWaitMs?: number;
  /** The budget lanes share (the process's delivery job slots) and the part suspect lanes never take (smtp-slots.ts). */
  shared?: { total: number; reserve: number };
  /** An idle pooled connection is closed after this (default 60 s). */
  idleCloseMs?: number;
  /** The trusted roots for TLS policies' checks when not Node's defaults (smtp-connection.ts OpenOptions). */
  tlsCa?: string[];
  /** Each session under a TLS policy (TLS-RPT's counter). */
  onTlsSession?: OpenOptions["onTlsSession"];
  log?: Logger;
}

export interface SendOutcome {
  answer: SmtpAnswer;
  durationMs: number;
  /**
   * No transaction began (no connection, greeting, EHLO or AUTH, or no slot):
   * another host of the destination may be tried at once. Once MAIL FROM was
   * sent, whatever happened is the answer.
   */
  beforeTransaction: boolean;
  /** The TLS verdict of the session it went on (or that a TLS policy refused). */
  tls?: TlsVerdict;
}

/** Where one send stands, for its outcome and the slot's release. */
interface Attempt {
  connection?: Connection;
  began: boolean;
  answered: boolean;
}

export class SmtpClient {
  private destinations = new Map<string, Destination>();
  private closed = false;
  private ticker: NodeJS.Timeout | undefined;
  private stalledTotal = 0;
  /** Transactions started as probes over the suspect share (smtp-slots.ts admit), still running. */
  private probesRunning = 0;
  /** Requests waiting for a probe, newest message first (smtp-slots.ts probeLineEntry). */
  private probeLine: ProbeWaiter[] = [];
  private readonly timeouts: SmtpTimeouts;
  private readonly limits: SlotLimits;
  private readonly stallAfterMs: number;
  private readonly slotWaitMs: number;
  private readonly idleCloseMs: number;
  private readonly tickMs: number;

  constructor(private readonly options: SmtpClientOptions) {
    this.timeouts = { ...RFC5321_TIMEOUTS, ...options.timeouts };
    this.stallAfterMs = options.stallAfterMs ?? 30_000;
    this.slotWaitMs = options.slotWaitMs ?? 60_000;
    this.idleCloseMs = options.idleCloseMs ?? 60_000;
    this.limits = { perDestination: options.maxConnections, stalledExtra: options.stalledExtra ?? options.maxConnections, shared: options.shared };
    this.tickMs = tickIntervalMs(this.timeouts, this.stallAfterMs, this.slotWaitMs, this.idleCloseMs);
  }

  /**
   * One SMTP transaction: MAIL FROM `from`, RCPT TO `to`, DATA `raw`. Never
   * throws. `lane`: what the transaction is for at this destination (the
   * recipient domain; default: that of `to`), where stalls are noticed.
   */
  async send(target: SmtpTarget, envelope: Envelope, raw: Buffer, lane?: string, account = "", use: ConnectionUse = {}): Promise<SendOutcome> {
    const started = Date.now();
    const d = this.destination(target);
    let slot: Slot;
    try {
      slot = await this.acquire(d, this.lane(d, lane ?? laneOfRecipient(envelope.to)), envelope.to, account, envelope.acceptedAt ?? started);
    } catch (e) {
      return { answer: answerOfNotTried(e as SmtpError), durationMs: Date.now() - started, beforeTransaction: true };
    }
    const attempt: Attempt = { began: false, answered: false };
    try {
      const info = await this.transact(target, slot, d, envelope, raw, attempt, use);
      return { answer: answerOfSent(info), durationMs: Date.now() - started, beforeTransaction: false, tls: attempt.connection?.tls };
    } catch (e) {
      const tls = (e as SmtpError).tls ?? attempt.connection?.tls;
      return { answer: answerOfFailure(e as SmtpError), durationMs: Date.now() - started, beforeTransaction: !attempt.began, ...(tls && { tls }) };
    } finally {
      this.release(d, slot, attempt.connection, attempt.answered, use);
    }
  }

  /**
   * Jobs held by peers that do not answer (`account`'s only when given): transactions that made no
   * progress for the stall time, requests waiting for a connection in a lane that is suspect (held by
   * its stalled transactions), and requests in the probe line. The deliver loop may run as many more.
   */
  heldByStalls(account?: string): number {
    const now = Date.now();
    const mine = (a: string) => account === undefined || a === account;
    let n = account === undefined ? this.stalledTotal : 0;
    for (const d of this.destinations.values()) {
      if (account !== undefined) for (const slot of d.active) if (slot.stalled && slot.account === account) n++;
      for (const w of d.waiters) if (mine(w.account) && w.lane.stalled > 0 && isSuspect(this.laneLoad(w.lane, now))) n++;
    }
    for (const w of this.probeLine) if (mine(w.account)) n++;
    return n;
  }

  close(): void {
    this.closed = true;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    for (const d of this.destinations.values()) {
      for (const c of d.idle.splice(0)) if (!c.dead) quitConnection(c);
      for (const w of d.waiters.splice(0)) this.unwait(w).reject(stoppingError());
    }
    for (const w of this.probeLine.splice(0)) this.unprobe(w).reject(stoppingError());
    this.destinations.clear();
  }

  /**
   * The transaction on an idle connection of the destination, else on a new
   * one; once more on a new one when the reused connection turns out closed
   * before it answered (mayResendOnFreshConnection).
   */
  private async transact(target: SmtpTarget, slot: Slot, d: Destination, envelope: Envelope, raw: Buffer, attempt: Attempt, use: ConnectionUse): Promise<SMTPConnection.SentMessageInfo> {
    for (let n = 0; ; n++) {
      const reused = takeIdle(d);
      attempt.connection = reused;
      if (reused) {
        slot.connection = reused;
        reused.progressAt = Date.now();
      } else spendOpen(use, d);
      const connection = reused ?? (await openConnection(target, { heloName: this.options.heloName, backstopMs: backstopMs(this.timeouts), ca: this.options.tlsCa, onTlsSession: this.options.onTlsSession }, (c) => (slot.connection = c)));
      attempt.connection = connection;
      attempt.began = true;
      connection.transactions++;
      try {
        const info = await runTransaction(connection, envelope, raw);
        attempt.answered = true;
        return info;
      } catch (e) {
        const err = e as SmtpError;
        attempt.answered = wasAnswered(err);
        const resend = mayResendOnFreshConnection({ reused: reused !== undefined, attempt: n, connection, err });
        retireConnection(connection, !connection.timedOut);
        if (!resend) throw err;
        attempt.began = false;
      }
    }
  }

  private destination(target: SmtpTarget): Destination {
    const key = destinationKey(target);
    let d = this.destinations.get(key);
    if (!d) {
      d = newDestination(target);
      this.destinations.set(key, d);
    }
    return d;
  }

  private lane(d: Destination, name: string): Lane {
    let lane = d.lanes.get(name);
    if (!lane) {
      lane = newLane();
      d.lanes.set(name, lane);
    }
    return lane;
  }

  private laneLoad(lane: Lane, now: number) {
    return laneLoad(lane, now, this.stallAfterMs);
  }

  /** What suspect lanes other than `except` hold (running and waiting). */
  private otherSuspectDemand(except: Lane, now: number): number {
    let sum = 0;
    for (const d of this.destinations.values()) {
      for (const lane of d.lanes.values()) {
        if (lane === except || lane.stalled === 0) continue;
        const load = this.laneLoad(lane, now);
        if (isSuspect(load)) sum += demandOf(load);
      }
    }
    return sum;
  }

  private acquire(d: Destination, lane: Lane, recipient: string, account: string, acceptedAt: number): Promise<Slot> {
    return new Promise((resolve, reject) => this.place({ destination: d, lane, recipient, account, acceptedAt, deadline: 0, resolve, reject }, Date.now()));
  }

  /**
   * Where a request goes now (smtp-slots.ts admit): started, into the probe
   * line, into the destination's line (until `slotWaitMs` from now, or the
   * deadline it already has), or refused.
   */
  private place(r: ProbeWaiter, now: number): void {
    const d = r.destination;
    const load = this.laneLoad(r.lane, now);
    const others = this.limits.shared && isSuspect(load) ? this.otherSuspectDemand(r.lane, now) : 0;
    const probe = { recipientStalled: hasStalled(r.lane, r.recipient, now), probesRunning: this.probesRunning };
    const decision = admit(this.limits, destinationLoad(d), load, others, probe);
    if (decision === "start" || decision === "probe") return r.resolve(this.startSlot(d, r.lane, r.recipient, r.account, decision === "probe"));
    if (decision === "refuse") return r.reject(overShareError(d));
    this.ensureTicking();
    if (decision === "probe line") return this.enterProbeLine(r, now);
    r.lane.waiting++;
    d.waiters.push({ lane: r.lane, recipient: r.recipient, account: r.account, deadline: r.deadline || now + this.slotWaitMs, resolve: r.resolve, reject: r.reject });
  }

  /** Every probe runs: the request waits for one, for two stall times at most, the newest message first (docs/adr/0325). */
  private enterProbeLine(r: ProbeWaiter, now: number): void {
    const entry = probeLineEntry(
      this.probeLine.map((w) => w.acceptedAt),
      probeLineLimit(this.limits),
      r.acceptedAt,
    );
    if (!entry) return r.reject(overShareError(r.destination));
    if (entry.evictOldest) {
      const oldest = this.unprobe(this.probeLine.pop()!);
      oldest.reject(overShareError(oldest.destination));
    }
    r.lane.probing++;
    this.probeLine.splice(Math.min(entry.index, this.probeLine.length), 0, { ...r, deadline: now + 2 * this.stallAfterMs });
  }

  /** Takes the waiter out of its lane's probe-line count: it is placed again, or refused. */
  private unprobe(w: ProbeWaiter): ProbeWaiter {
    w.lane.probing--;
    return w;
  }

  /** While probes are free, the probe line's newest is placed again: a probe, or as any request when its lane was answered meanwhile. */
  private serveProbeLine(now: number): void {
    while (this.probeLine.length > 0 && this.probesRunning < probeLimit(this.limits)) {
      const w = this.unprobe(this.probeLine.shift()!);
      this.place({ ...w, deadline: 0 }, now);
    }
  }

  private startSlot(d: Destination, lane: Lane, recipient: string, account: string, probe: boolean): Slot {
    const slot: Slot = { lane, recipient, account, probe, startedAt: Date.now(), stalled: false };
    countAccount(d, account, 1);
    if (probe) this.probesRunning++;
    d.active.add(slot);
    lane.active++;
    this.ensureTicking();
    return slot;
  }

  /** Takes the waiter out of its lane's count: it starts, or is refused. */
  private unwait(w: Waiter): Waiter {
    w.lane.waiting--;
    return w;
  }

  private release(d: Destination, slot: Slot, connection: Connection | undefined, answered: boolean, use: ConnectionUse): void {
    if (slot.probe && d.active.has(slot)) this.probesRunning--;
    if (d.active.has(slot)) countAccount(d, slot.account, -1);
    this.stalledTotal += endSlot(d, slot, answered, Date.now());
    const spent = connection !== undefined && use.messagesPerConnection !== undefined && connection.transactions >= use.messagesPerConnection;
    if (connection && !connection.dead && !this.closed && !spent) {
      enterPhase(connection, "idle");
      connection.idleSince = connection.phaseSince;
      d.idle.push(connection);
    } else if (connection && !connection.dead) quitConnection(connection);
    this.pump(d);
    if (slot.probe) this.serveProbeLine(Date.now());
  }

  /**
   * Starts waiters while the destination has room (first come, first
   * served); one of a suspect lane over the share is refused instead (it
   * became suspect while it waited).
   */
  private pump(d: Destination): void {
    while (d.waiters.length > 0 && waiterMayStart(this.limits, destinationLoad(d))) {
      const w = this.unwait(d.waiters.splice(nextWaiterIndex(d), 1)[0]!);
      if (this.limits.shared) {
        const now = Date.now();
        const lane = this.laneLoad(w.lane, now);
        // `lane` no longer counts this waiter: its demand as if it started.
        if (isSuspect(lane) && this.otherSuspectDemand(w.lane, now) + demandOf(lane) >= suspectShare(this.limits)) {
          w.reject(overShareError(d));
          continue;
        }
      }
      w.resolve(this.startSlot(d, w.lane, w.recipient, w.account, false));
    }
  }

  /** The phase ran out of time: the transaction settles with the timeout (the connection's `end`), the socket is dropped. */
  private timeOut(c: Connection, phase: SmtpPhase, limitMs: number, d: Destination): void {
    c.timedOut = { phase, limitMs };
    this.options.log?.warn({ destination: d.label, phase, limitMs }, "delivery: SMTP phase timed out; the transaction is deferred");
    retireConnection(c, false);
  }

  private ensureTicking(): void {
    if (this.ticker || this.closed) return;
    this.ticker = setInterval(() => this.tick(), this.tickMs);
    this.ticker.unref();
  }

  /** Phase limits, stalls, slot waits, the shared budget, idle connections. */
  private tick(): void {
    const now = Date.now();
    for (const d of this.destinations.values()) {
      this.checkTransactions(d, now);
      for (const w of takeExpiredWaiters(d, now)) this.unwait(w).reject(slotWaitError(d, this.slotWaitMs));
      for (const c of takeExpiredIdle(d, now, this.idleCloseMs)) quitConnection(c);
    }
    for (const w of takeExpiredProbeWaiters(this.probeLine, now)) this.unprobe(w).reject(overShareError(w.destination));
    if (this.limits.shared) this.refuseOverShare(now);
    // Only then are the slots freed by stalls handed out: never to a waiter that was over the share.
    for (const d of this.destinations.values()) this.pump(d);
    this.serveProbeLine(now);
    this.forgetUnused(now);
  }

  /**
   * Each running transaction: its phase's limit, and whether it counts as
   * stalled (its recipient is then remembered at the lane); a probe that
   * stalls before the end of its data is given up (docs/adr/0325).
   */
  private checkTransactions(d: Destination, now: number): void {
    for (const slot of d.active) {
      const c = slot.connection;
      if (c && !c.timedOut && c.phase !== "idle") {
        const limit = phaseLimitMs(c.phase, this.timeouts);
        if (now - c.phaseSince >= limit) this.timeOut(c, c.phase, limit, d);
      }
      const delta = setStalled(d, slot, now - (c?.progressAt ?? slot.startedAt) >= this.stallAfterMs);
      this.stalledTotal += delta;
      if (delta === 1) rememberStalled(slot.lane, slot.recipient, now);
      if (slot.probe && slot.stalled && c && !c.timedOut && mayGiveUpIn(c.phase)) this.giveUp(c, d, slot);
    }
  }

  /** A probe stalled before the end of data: dropped, its recipient deferred with the reason (nothing was accepted). */
  private giveUp(c: Connection, d: Destination, slot: Slot): void {
    const phase = c.phase === "idle" ? "connect" : c.phase;
    c.timedOut = { phase, limitMs: this.stallAfterMs, givenUp: probeGivenUpReason(phase, this.stallAfterMs, laneOfRecipient(slot.recipient)) };
    this.options.log?.info({ destination: d.label, phase }, "delivery: a probe past stalled transactions stalled too; given up");
    retireConnection(c, false);
  }

  /** Suspect lanes over their share give up their newest waiters (deferred): their job slots go to mail that is answered. */
  private refuseOverShare(now: number): void {
    const lanes = [...this.destinations.values()].flatMap((d) => [...d.lanes.values()].map((lane) => ({ d, lane })));
    const refuse = waitersOverShare(
      this.limits,
      lanes.map(({ lane }) => this.laneLoad(lane, now)),
    );
    lanes.forEach(({ d, lane }, i) => {
      for (const w of takeNewestWaiters(d, lane, refuse[i]!)) this.unwait(w).reject(overShareError(d));
    });
  }

  /** Lanes and destinations with nothing left in them go; with no destination left, the tick stops. */
  private forgetUnused(now: number): void {
    for (const [key, d] of this.destinations) {
      for (const [name, lane] of d.lanes) if (laneIsUnused(lane, now, this.stallAfterMs)) d.lanes.delete(name);
      if (destinationIsEmpty(d)) this.destinations.delete(key);
    }
    if (this.destinations.size === 0 && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }
}

/** A new connection counts against the destination's connection rate; spent, the copy is not tried until it frees (no attempt spent). */
function spendOpen(use: ConnectionUse, d: Destination): void {
  const now = Date.now();
  const wait = use.openRate?.tryOpen(now) ?? 0;
  if (wait <= 0) return;
  throw Object.assign(new Error(`Throttled: ${d.label}'s shaping rule allows no more new connections this minute`), { code: "ECONNRATE", heldUntil: now + wait });
}
