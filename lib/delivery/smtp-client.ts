import net from "node:net";
import { Readable } from "node:stream";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import type { Logger } from "../logger";
import type { SmtpAnswer } from "./classify";
import { PACED_CHUNK_BYTES, pacedStream } from "./paced-stream";
import {
  admit,
  demandOf,
  formatDuration,
  isSuspect,
  phaseLimitMs,
  phaseOfCommand,
  QUIT_TIMEOUT_MS,
  RFC5321_TIMEOUTS,
  suspectShare,
  timeoutReason,
  waiterMayStart,
  waitersOverShare,
  type SlotLoad,
  type SlotLimits,
  type SmtpPhase,
  type SmtpTimeouts,
} from "./smtp-slots";

/**
 * Pooled SMTP client connections: nodemailer's SMTPConnection (the protocol:
 * EHLO, STARTTLS or implicit TLS, AUTH, MAIL/RCPT/DATA, dot-stuffing) over
 * sockets with Nagle disabled (each SMTP command is its own small packet;
 * with Nagle on, every command waits for the previous ACK: docs/stack.md §5, 22 →
 * ~590 messages/s on one connection). The pool is ours, not nodemailer's
 * (docs/adr/0023): its Mailer layer (MimeNode, plugins, streams) took half
 * of the client's CPU per message for bytes that are already a message.
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

export interface SmtpTarget {
  host: string;
  port: number;
  /** Implicit TLS (smtps://). Otherwise STARTTLS is used when offered. */
  secure: boolean;
  auth?: { user: string; pass: string };
  /** Name for TLS SNI when `host` is an IP address (MX delivery). */
  servername?: string;
}

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
}

type SmtpError = Error & {
  code?: string;
  responseCode?: number;
  response?: string;
  rejectedErrors?: { responseCode?: number; response?: string }[];
  enhancedCode?: string;
};

const replyCode = (response: string | undefined) => {
  const m = /^([2-5]\d\d)\b/.exec((response ?? "").trim());
  return m ? Number(m[1]) : undefined;
};

interface Connection {
  smtp?: SMTPConnection;
  /** Our TCP socket (under TLS, the one the TLS socket writes through). */
  socket: net.Socket;
  /** Closed or failed: never handed out again. */
  dead: boolean;
  phase: SmtpPhase | "idle";
  /** When the phase began (for data blocks: when the last block was handed over). */
  phaseSince: number;
  /** Last progress: a reply received (the next command written), data handed over. */
  progressAt: number;
  idleSince: number;
  timedOut?: { phase: SmtpPhase; limitMs: number };
}

interface Slot {
  lane: Lane;
  startedAt: number;
  /** The connection the transaction uses (or is opening). */
  connection?: Connection;
  stalled: boolean;
}

interface Waiter {
  lane: Lane;
  deadline: number;
  resolve: (slot: Slot) => void;
  reject: (err: SmtpError) => void;
}

interface Destination {
  key: string;
  label: string;
  idle: Connection[];
  active: Set<Slot>;
  stalled: number;
  /** First come, first served, whatever their lane. */
  waiters: Waiter[];
  lanes: Map<string, Lane>;
}

/** What transactions at a destination are for (a recipient domain): the unit a tarpit is noticed in. */
interface Lane {
  active: number;
  stalled: number;
  waiting: number;
  /** When one of its transactions last ended with an answer of the peer. */
  answeredAt: number;
}

/** The private methods of SMTPConnection the phase watch wraps (nodemailer 8; see watchPhases). */
interface SmtpConnectionInternals {
  _sendCommand(this: unknown, str: unknown, logStr?: unknown): unknown;
  _createSendStream(this: unknown, callback: unknown): NodeJS.ReadableStream;
}

/**
 * Keeps `c.phase` current: each command written starts the phase of its
 * reply (and means the previous reply came: progress); the DATA stream's
 * blocks and its end are the data phases. SMTPConnection has no events for
 * these, so its two methods that every command and the message data pass
 * through are wrapped on the instance (observed, not changed).
 */
function watchPhases(smtp: SMTPConnection, c: Connection): void {
  const internals = smtp as unknown as SmtpConnectionInternals;
  const sendCommand = internals._sendCommand;
  const createSendStream = internals._createSendStream;
  if (typeof sendCommand !== "function" || typeof createSendStream !== "function") {
    throw new Error("nodemailer's SMTPConnection has no _sendCommand/_createSendStream: lib/delivery/smtp-client.ts watches the SMTP phases through them");
  }
  internals._sendCommand = function (str, logStr) {
    enterPhase(c, phaseOfCommand(String(str)));
    return sendCommand.call(this, str, logStr);
  };
  internals._createSendStream = function (callback) {
    const stream = createSendStream.call(this, callback);
    enterPhase(c, "data block");
    // A block piped on to the socket is progress; none while the socket does not drain (the peer does not read).
    stream.on("data", () => {
      c.phaseSince = c.progressAt = Date.now();
    });
    stream.once("end", () => enterPhase(c, "end of data"));
    return stream;
  };
}

function enterPhase(c: Connection, phase: SmtpPhase | "idle"): void {
  c.phase = phase;
  c.phaseSince = c.progressAt = Date.now();
}

const timeoutError = (t: { phase: SmtpPhase; limitMs: number }): SmtpError =>
  Object.assign(new Error(timeoutReason(t.phase, t.limitMs)), { code: "ETIMEDOUT", enhancedCode: t.phase === "connect" ? "4.4.1" : "4.4.2" });

export class SmtpClient {
  private destinations = new Map<string, Destination>();
  private closed = false;
  private ticker: NodeJS.Timeout | undefined;
  private stalledTotal = 0;
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
    // Limits are checked on a tick: a quarter of the shortest one, between 25 ms and 1 s.
    const shortest = Math.min(...Object.values(this.timeouts), this.stallAfterMs, this.slotWaitMs, this.idleCloseMs);
    this.tickMs = Math.max(25, Math.min(1000, Math.floor(shortest / 4)));
  }

  private destination(target: SmtpTarget): Destination {
    const key = `${target.host}:${target.port}:${target.secure}:${target.auth?.user ?? ""}`;
    let d = this.destinations.get(key);
    if (!d) {
      d = { key, label: `${target.host}:${target.port}`, idle: [], active: new Set(), stalled: 0, waiters: [], lanes: new Map() };
      this.destinations.set(key, d);
    }
    return d;
  }

  private lane(d: Destination, name: string): Lane {
    let lane = d.lanes.get(name);
    if (!lane) {
      lane = { active: 0, stalled: 0, waiting: 0, answeredAt: 0 };
      d.lanes.set(name, lane);
    }
    return lane;
  }

  private load(d: Destination): SlotLoad {
    return { live: d.active.size - d.stalled, stalled: d.stalled, waiting: d.waiters.length };
  }

  private laneLoad(lane: Lane, now: number): SlotLoad {
    return { live: lane.active - lane.stalled, stalled: lane.stalled, waiting: lane.waiting, answeredRecently: now - lane.answeredAt < this.stallAfterMs };
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

  /** The longest any phase may last, plus a minute: SMTPConnection's own timers only as a backstop. */
  private backstopMs(): number {
    return Math.max(...Object.values(this.timeouts)) + 60_000;
  }

  private async open(target: SmtpTarget, slot: Slot): Promise<Connection> {
    const now = Date.now();
    const socket = net.connect({ host: target.host, port: target.port });
    socket.setNoDelay(true);
    const c: Connection = { socket, dead: false, phase: "connect", phaseSince: now, progressAt: now, idleSince: now };
    slot.connection = c;
    try {
      await new Promise<void>((resolve, reject) => {
        const fail = (err: Error) => {
          socket.removeListener("close", closed);
          reject(err);
        };
        const closed = () => fail(Object.assign(new Error(`Connection to ${target.host}:${target.port} closed`), { code: "ECONNECTION" }));
        socket.once("error", fail);
        socket.once("close", closed);
        socket.once("connect", () => {
          socket.removeListener("error", fail);
          socket.removeListener("close", closed);
          resolve();
        });
      });
      enterPhase(c, "greeting");
      const backstop = this.backstopMs();
      const smtp = new SMTPConnection({
        connection: socket,
        host: target.host,
        port: target.port,
        secure: target.secure,
        name: this.options.heloName,
        // The phase limits are ours (the tick); these only back them up.
        connectionTimeout: backstop,
        greetingTimeout: backstop,
        socketTimeout: backstop,
        // Opportunistic TLS, as MTAs do: encrypt when offered, do not insist on a public certificate.
        tls: { rejectUnauthorized: false, servername: target.servername },
      } as SMTPConnection.Options);
      c.smtp = smtp;
      watchPhases(smtp, c);
      // An idle connection the peer closes (or that times out) must not crash anything: it is dropped.
      const drop = () => {
        c.dead = true;
      };
      smtp.on("error", drop);
      smtp.on("end", drop);
      await new Promise<void>((resolve, reject) => {
        smtp.once("error", reject);
        smtp.once("end", () => reject(Object.assign(new Error(`Connection to ${target.host}:${target.port} closed before it was ready`), { code: "ECONNECTION" })));
        smtp.connect(() => resolve());
      });
      if (target.auth) {
        const auth = target.auth;
        await new Promise<void>((resolve, reject) => smtp.login(auth, (err) => (err ? reject(err) : resolve())));
      }
    } catch (err) {
      this.retire(c, false);
      throw c.timedOut ? timeoutError(c.timedOut) : err;
    }
    return c;
  }

  private acquire(d: Destination, lane: Lane): Promise<Slot> {
    const now = Date.now();
    const laneLoad = this.laneLoad(lane, now);
    const others = this.limits.shared && isSuspect(laneLoad) ? this.otherSuspectDemand(lane, now) : 0;
    const decision = admit(this.limits, this.load(d), laneLoad, others);
    if (decision === "start") return Promise.resolve(this.startSlot(d, lane));
    if (decision === "refuse") return Promise.reject(this.overShareError(d));
    this.ensureTicking();
    lane.waiting++;
    return new Promise((resolve, reject) => d.waiters.push({ lane, deadline: now + this.slotWaitMs, resolve, reject }));
  }

  private startSlot(d: Destination, lane: Lane): Slot {
    const slot: Slot = { lane, startedAt: Date.now(), stalled: false };
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

  private overShareError(d: Destination): SmtpError {
    return Object.assign(
      new Error(
        `Not tried: transactions that get no answer (at ${d.label} for these recipients, and elsewhere) hold every delivery slot not kept for mail that is answered`,
      ),
      { code: "ESLOTSHARE", enhancedCode: "4.4.5" },
    );
  }

  private slotWaitError(d: Destination): SmtpError {
    const load = this.load(d);
    return Object.assign(
      new Error(
        `Not tried: no connection to ${d.label} free within ${formatDuration(this.slotWaitMs)} (transactions running: ${load.live + load.stalled}, stalled: ${load.stalled})`,
      ),
      { code: "ESLOTWAIT", enhancedCode: "4.4.5" },
    );
  }

  private release(d: Destination, slot: Slot, connection: Connection | undefined, answered: boolean): void {
    if (d.active.delete(slot)) {
      slot.lane.active--;
      if (slot.stalled) {
        d.stalled--;
        slot.lane.stalled--;
        this.stalledTotal--;
      }
      if (answered) slot.lane.answeredAt = Date.now();
    }
    if (connection && !connection.dead && !this.closed) {
      enterPhase(connection, "idle");
      connection.idleSince = connection.phaseSince;
      d.idle.push(connection);
    } else if (connection && !connection.dead) this.quit(connection);
    this.pump(d);
  }

  /**
   * Starts waiters while the destination has room (first come, first
   * served); one of a suspect lane over the share is refused instead (it
   * became suspect while it waited).
   */
  private pump(d: Destination): void {
    while (d.waiters.length > 0 && waiterMayStart(this.limits, this.load(d))) {
      const w = this.unwait(d.waiters.shift()!);
      if (this.limits.shared) {
        const now = Date.now();
        const lane = this.laneLoad(w.lane, now);
        // `lane` no longer counts this waiter: its demand as if it started.
        if (isSuspect(lane) && this.otherSuspectDemand(w.lane, now) + demandOf(lane) >= suspectShare(this.limits)) {
          w.reject(this.overShareError(d));
          continue;
        }
      }
      w.resolve(this.startSlot(d, w.lane));
    }
  }

  /** Politely (QUIT) when the connection is sound, else at once; the socket goes within QUIT_TIMEOUT_MS either way. */
  private quit(c: Connection): void {
    c.dead = true;
    c.smtp?.quit();
    const timer = setTimeout(() => c.socket.destroy(), QUIT_TIMEOUT_MS);
    timer.unref();
    c.socket.once("close", () => clearTimeout(timer));
  }

  /** A failed connection: closed (FIN) when `graceful`, else dropped at once; never used again. */
  private retire(c: Connection, graceful: boolean): void {
    c.dead = true;
    c.smtp?.close();
    if (!graceful) {
      c.socket.destroy();
      return;
    }
    const timer = setTimeout(() => c.socket.destroy(), QUIT_TIMEOUT_MS);
    timer.unref();
    c.socket.once("close", () => clearTimeout(timer));
  }

  /** The phase ran out of time: the transaction settles with the timeout (the connection's `end`), the socket is dropped. */
  private timeOut(c: Connection, phase: SmtpPhase, limitMs: number, d: Destination): void {
    c.timedOut = { phase, limitMs };
    this.options.log?.warn({ destination: d.label, phase, limitMs }, "delivery: SMTP phase timed out; the transaction is deferred");
    this.retire(c, false);
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
      for (const slot of d.active) {
        const c = slot.connection;
        if (c && !c.timedOut && c.phase !== "idle") {
          const limit = phaseLimitMs(c.phase, this.timeouts);
          if (now - c.phaseSince >= limit) this.timeOut(c, c.phase, limit, d);
        }
        const stalled = now - (c?.progressAt ?? slot.startedAt) >= this.stallAfterMs;
        if (stalled !== slot.stalled) {
          slot.stalled = stalled;
          d.stalled += stalled ? 1 : -1;
          slot.lane.stalled += stalled ? 1 : -1;
          this.stalledTotal += stalled ? 1 : -1;
        }
      }
      while (d.waiters.length > 0 && d.waiters[0]!.deadline <= now) this.unwait(d.waiters.shift()!).reject(this.slotWaitError(d));
      for (let i = d.idle.length - 1; i >= 0; i--) {
        const c = d.idle[i]!;
        if (c.dead || now - c.idleSince >= this.idleCloseMs) {
          d.idle.splice(i, 1);
          if (!c.dead) this.quit(c);
        }
      }
    }
    if (this.limits.shared) {
      // Suspect lanes over their share give up their newest waiters (deferred): their job slots go to mail that is answered.
      const lanes = [...this.destinations.values()].flatMap((d) => [...d.lanes.values()].map((lane) => ({ d, lane })));
      const refuse = waitersOverShare(
        this.limits,
        lanes.map(({ lane }) => this.laneLoad(lane, now)),
      );
      lanes.forEach(({ d, lane }, i) => {
        for (let n = refuse[i]!, k = d.waiters.length - 1; n > 0 && k >= 0; k--) {
          if (d.waiters[k]!.lane !== lane) continue;
          this.unwait(d.waiters.splice(k, 1)[0]!).reject(this.overShareError(d));
          n--;
        }
      });
    }
    // Only then are the slots freed by stalls handed out: never to a waiter that was over the share.
    for (const d of this.destinations.values()) this.pump(d);
    for (const [key, d] of this.destinations) {
      for (const [name, lane] of d.lanes) if (lane.active === 0 && lane.waiting === 0 && now - lane.answeredAt >= this.stallAfterMs) d.lanes.delete(name);
      if (d.active.size === 0 && d.waiters.length === 0 && d.idle.length === 0 && d.lanes.size === 0) this.destinations.delete(key);
    }
    if (this.destinations.size === 0 && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  private transaction(connection: Connection, envelope: { from: string; to: string }, raw: Buffer): Promise<SMTPConnection.SentMessageInfo> {
    const smtp = connection.smtp!;
    // A large message reaches the dot-stuffing in 64 KB pieces, a turn of the event loop before each (the stall budget, ADR 0310).
    const message = raw.length > PACED_CHUNK_BYTES ? Readable.from([raw]).pipe(pacedStream()) : raw;
    return new Promise((resolve, reject) => {
      // The server's answers come to the callback; a connection that fails (closed, timed out) is only an
      // `error`/`end` event of the connection, and without these the transaction would wait for ever.
      const onError = (err: Error) => settle(err);
      const onEnd = () => settle(Object.assign(new Error("Connection closed unexpectedly"), { code: "ECONNECTION" }));
      const settle = (err: Error | null, info?: SMTPConnection.SentMessageInfo) => {
        smtp.removeListener("error", onError);
        smtp.removeListener("end", onEnd);
        if (err && !Buffer.isBuffer(message)) message.destroy();
        if (err) reject(connection.timedOut ? timeoutError(connection.timedOut) : err);
        else resolve(info!);
      };
      smtp.once("error", onError);
      smtp.once("end", onEnd);
      smtp.send({ from: envelope.from, to: [envelope.to] }, message, (err, info) => settle(err, info));
    });
  }

  /**
   * One SMTP transaction: MAIL FROM `from`, RCPT TO `to`, DATA `raw`. Never
   * throws. `lane`: what the transaction is for at this destination (the
   * recipient domain; default: that of `to`), where stalls are noticed.
   */
  async send(target: SmtpTarget, envelope: { from: string; to: string }, raw: Buffer, lane?: string): Promise<SendOutcome> {
    const started = Date.now();
    const d = this.destination(target);
    let slot: Slot;
    try {
      slot = await this.acquire(d, this.lane(d, lane ?? envelope.to.slice(envelope.to.lastIndexOf("@") + 1).toLowerCase()));
    } catch (e) {
      const err = e as SmtpError;
      return { answer: { response: err.message, errorCode: err.code, enhancedCode: err.enhancedCode }, durationMs: Date.now() - started, beforeTransaction: true };
    }
    let connection: Connection | undefined;
    let began = false;
    let answered = false;
    try {
      for (let attempt = 0; ; attempt++) {
        let reused = false;
        connection = undefined;
        while (d.idle.length > 0 && !connection) {
          const c = d.idle.pop()!;
          if (!c.dead) connection = c;
        }
        if (connection) {
          reused = true;
          slot.connection = connection;
          connection.progressAt = Date.now();
        } else connection = await this.open(target, slot);
        began = true;
        try {
          const info = await this.transaction(connection, envelope, raw);
          answered = true;
          return { answer: { responseCode: replyCode(info.response) ?? 250, response: info.response }, durationMs: Date.now() - started, beforeTransaction: false };
        } catch (e) {
          const err = e as SmtpError;
          answered = err.responseCode !== undefined || err.rejectedErrors !== undefined;
          // A pooled connection found closed before MAIL FROM was answered (the peer closed it while
          // idle, or at that moment), or closed with a 421 that crossed our MAIL FROM (a peer's idle
          // timeout, which smtp-server sets at 60 s, as long as our idle close): nothing of the message
          // can have been accepted, so it goes out once more on a fresh connection. A timeout, or
          // anything after that first reply, is the answer.
          const closedUnanswered =
            reused &&
            attempt === 0 &&
            !connection.timedOut &&
            (connection.phase === "idle" || connection.phase === "MAIL") &&
            ((err.responseCode === undefined && (err.code === "ECONNECTION" || err.code === "ESOCKET")) || err.responseCode === 421);
          this.retire(connection, !connection.timedOut);
          if (!closedUnanswered) throw err;
          began = false;
        }
      }
    } catch (e) {
      const err = e as SmtpError;
      const rejected = err.rejectedErrors?.[0];
      return {
        answer: {
          responseCode: rejected?.responseCode ?? err.responseCode,
          response: rejected?.response ?? err.response ?? err.message,
          errorCode: err.code,
          enhancedCode: err.enhancedCode,
        },
        durationMs: Date.now() - started,
        beforeTransaction: !began,
      };
    } finally {
      this.release(d, slot, connection, answered);
    }
  }

  /** Transactions running that made no progress for the stall time (their jobs wait on peers that do not answer). */
  stalledTransactions(): number {
    return this.stalledTotal;
  }

  close(): void {
    this.closed = true;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    for (const d of this.destinations.values()) {
      for (const c of d.idle.splice(0)) if (!c.dead) this.quit(c);
      for (const w of d.waiters.splice(0)) this.unwait(w).reject(Object.assign(new Error("Delivery is stopping"), { code: "ESLOTWAIT", enhancedCode: "4.3.2" }));
    }
    this.destinations.clear();
  }
}
