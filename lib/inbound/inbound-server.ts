import nodemailer from "nodemailer";
import { SMTPServer } from "smtp-server";
import type { AppContext } from "../context";
import { handleInboundMessage } from "./handle-message";
import { ConcurrentConnections, ConnectionRate, openConnectionOf, rateKeyOf, readBoundedMessage, SpentBudgets } from "./smtp-limits";
import { budgetRefusal, createInboundStore, decideRecipient, DISK_FULL_REFUSAL, diskTooFull, storeRoutedMessage, type RcptDecision } from "./route-recipient";

/**
 * The inbound SMTP server (MAILROOM_INBOUND_HOST:MAILROOM_INBOUND_PORT):
 * receives mail for the accounts' inbound routes (docs/contract.md §13),
 * and DSN bounces at VERP addresses, ARF complaints and mailto unsubscribes
 * at the bounce domains. A recipient that is neither is refused at RCPT
 * (550 5.1.1). Reports are decided after reading: what cannot be
 * attributed is dropped with a log line (refusing would only make the
 * sender bounce the bounce). Mail for a route is stored before the 250
 * (lib/inbound/route-recipient.ts), once per transaction, within the byte
 * budgets of its client address and accounts (docs/adr/0807). It never
 * crashes on input.
 */

/** Recipients of one transaction; more are answered 452 (RFC 5321 asks servers to take at least 100). */
const MAX_RECIPIENTS = 100;
/** Refused recipients (550) of one session, each a lookup; the next RCPT is answered 421 and the connection closed. */
export const MAX_REFUSED_RECIPIENTS = 20;
/**
 * RCPT commands of one session, whatever their answer, each a lookup: past it the next is answered 421 and the
 * connection closed. A transaction holds 100 recipients, but RSET, a new MAIL or the same address again cost
 * lookups without adding any (docs/adr/0807).
 */
export const MAX_SESSION_RCPTS = 1000;

const refusal = (r: { code: number; message: string }) => Object.assign(new Error(r.message), { responseCode: r.code });

export interface InboundServer {
  host: string;
  port: number;
  stop(): Promise<void>;
}

export async function startInboundServer(ctx: AppContext, secret: string): Promise<InboundServer> {
  const limits = ctx.config.inbound;
  const rate = new ConnectionRate(limits.connectionsPerMinute);
  // Open sessions per client address: one host cannot hold every maxClients slot (as on the submission server).
  const openPerAddress = new ConcurrentConnections(limits.connectionsPerAddress);
  const slotOf = new WeakMap<object, string>();
  // What RCPT decided for each accepted recipient of a session's transaction.
  const decisions = new WeakMap<object, Map<string, RcptDecision>>();
  // Recipients refused so far in each session (finding no route costs a lookup each).
  const refusedOf = new WeakMap<object, number>();
  // RCPT commands so far in each session.
  const rcptsOf = new WeakMap<object, number>();
  // Budgets found spent this hour: later transactions are refused at MAIL or RCPT, before their DATA.
  const spent = new SpentBudgets();
  // Messages for routes received at the same time commit together (group commit, as acceptances do).
  const store = createInboundStore(ctx);
  const server = new SMTPServer({
    name: ctx.config.delivery.heloName,
    banner: "Mailroom inbound",
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    logger: false,
    // Bounded sessions: at most maxClients at once (421 past it), messages up to
    // maxMessageBytes (announced in EHLO SIZE, 552 past it), a connection rate
    // per client address (421), no reverse DNS lookup per connection.
    maxClients: limits.maxClients,
    size: limits.maxMessageBytes,
    disableReverseLookup: true,
    onConnect(session, callback) {
      const tooMany = () => callback(Object.assign(new Error("4.7.0 Too many connections from your address, try again later"), { responseCode: 421 }));
      if (!rate.allow(session.remoteAddress)) {
        ctx.log.warn({ remote: session.remoteAddress }, "inbound SMTP connection refused: connection rate exceeded");
        return tooMany();
      }
      // Gone already (closed while its greeting was pending): onClose has run, nothing to count.
      if (!openConnectionOf([server], session)) return tooMany();
      const key = openPerAddress.admit(session.remoteAddress);
      if (key === undefined) {
        ctx.log.warn({ remote: session.remoteAddress, limit: limits.connectionsPerAddress }, "inbound SMTP connection refused: too many open from this address");
        return tooMany();
      }
      slotOf.set(session, key);
      return callback();
    },
    onClose(session) {
      const key = slotOf.get(session);
      if (key === undefined) return;
      slotOf.delete(session);
      openPerAddress.release(key);
    },
    onMailFrom(_address, session, callback) {
      decisions.set(session, new Map());
      // Reports come from the same kind of clients, but a client that spent its budget this hour sends no more now.
      if (spent.isSpent("address", rateKeyOf(session.remoteAddress))) return callback(refusal(budgetRefusal("address")));
      callback();
    },
    onRcptTo(address, session, callback) {
      const mine = decisions.get(session) ?? new Map<string, RcptDecision>();
      decisions.set(session, mine);
      const refused = refusedOf.get(session) ?? 0;
      if (refused >= MAX_REFUSED_RECIPIENTS) {
        ctx.log.warn({ remote: session.remoteAddress, refused }, "inbound SMTP session closed: too many refused recipients");
        // smtp-server closes the connection after a 421.
        return callback(Object.assign(new Error("4.7.0 Too many unknown recipients, closing connection"), { responseCode: 421 }));
      }
      const rcpts = (rcptsOf.get(session) ?? 0) + 1;
      rcptsOf.set(session, rcpts);
      if (rcpts > MAX_SESSION_RCPTS) {
        ctx.log.warn({ remote: session.remoteAddress, rcpts }, "inbound SMTP session closed: too many RCPT commands");
        return callback(Object.assign(new Error("4.7.0 Too many recipients in this session, closing connection"), { responseCode: 421 }));
      }
      if (mine.size >= MAX_RECIPIENTS) return callback(Object.assign(new Error("4.5.3 Too many recipients"), { responseCode: 452 }));
      decideRecipient(ctx, secret, address.address).then(
        (decision) => {
          if (!decision) {
            refusedOf.set(session, refused + 1);
            return callback(Object.assign(new Error("5.1.1 No such recipient here"), { responseCode: 550 }));
          }
          // Mail for a route is stored: not below the disk's reserve, nor past its account's byte budget (docs/adr/0807).
          if (decision.kind === "route" && diskTooFull(ctx)) return callback(refusal(DISK_FULL_REFUSAL));
          if (decision.kind === "route" && spent.isSpent("account", decision.recipient.route.account_id)) return callback(refusal(budgetRefusal("account")));
          // Too many received messages wait for their posts (docs/adr/0049): the sender keeps this one and tries later.
          // Reports (bounces, complaints, unsubscribes) are not posted anywhere and are always taken.
          if (decision.kind === "route" && ctx.inboundBacklog.full()) {
            return callback(Object.assign(new Error("4.3.2 Too many received messages waiting to be posted, try again later"), { responseCode: 451 }));
          }
          mine.set(address.address, decision);
          callback();
        },
        (err: Error) => {
          if (!ctx.outage.report("inbound", err, { to: address.address })) ctx.log.error({ err, to: address.address }, "inbound recipient could not be checked");
          callback(Object.assign(new Error("4.3.0 Temporary failure, try again later"), { responseCode: 451 }));
        },
      );
    },
    onData(stream, session, callback) {
      readBoundedMessage(stream, limits.maxMessageBytes).then(async ({ raw, exceeded }) => {
        if (exceeded) {
          ctx.log.warn({ remote: session.remoteAddress, limit: limits.maxMessageBytes }, "inbound message refused: too big");
          return callback(Object.assign(new Error("5.3.4 Message too big"), { responseCode: 552 }));
        }
        const decided = [...(decisions.get(session)?.values() ?? [])];
        const reportRecipients = session.envelope.rcptTo.map((r) => r.address).filter((a) => decisions.get(session)?.get(a)?.kind !== "route");
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: reportRecipients,
        };
        const routed = decided.flatMap((d) => (d.kind === "route" ? [d.recipient] : []));
        if (routed.length > 0) {
          let refusal: { code: number; message: string } | undefined;
          try {
            refusal = await storeRoutedMessage(ctx, store, spent, raw, routed, { mailFrom: envelope.from, remoteIp: session.remoteAddress, helo: session.hostNameAppearsAs ?? "" });
          } catch (err) {
            const fault = ctx.outage.report("inbound", err, { from: envelope.from, to: routed.map((r) => r.address) });
            if (!fault) ctx.log.error({ err, from: envelope.from }, "inbound message could not be stored");
            if (fault === "disk-full") return callback(Object.assign(new Error("4.3.1 Mail system full, try again later"), { responseCode: 452 }));
            return callback(Object.assign(new Error("4.3.0 Temporary failure, try again later"), { responseCode: 451 }));
          }
          if (refusal) return callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
          if (reportRecipients.length === 0) return callback(null, "2.0.0 Ok: stored");
        }
        handleInboundMessage(ctx, secret, raw, envelope).then(
          (outcome) => {
            // Refused only when nothing of the transaction was stored for a route (a 554 says none of it was taken).
            if (outcome.kind === "refused" && routed.length === 0) return callback(Object.assign(new Error(`5.6.0 Message refused: ${outcome.why}`), { responseCode: 554 }));
            if (outcome.kind === "dropped") ctx.log.info({ from: envelope.from, to: envelope.to, why: outcome.why }, "inbound message dropped");
            else ctx.log.info({ outcome }, "inbound report processed");
            callback(null, "2.0.0 Ok");
          },
          (err: Error) => {
            // A database outage is logged once per outage (docs/adr/0008); a defect every time.
            const fault = ctx.outage.report("inbound", err, { from: envelope.from, to: envelope.to });
            if (!fault) ctx.log.error({ err, from: envelope.from, to: envelope.to }, "inbound message could not be processed");
            if (fault === "disk-full") return callback(Object.assign(new Error("4.3.1 Mail system full, try again later"), { responseCode: 452 }));
            callback(Object.assign(new Error("4.3.0 Temporary failure, try again later"), { responseCode: 451 }));
          },
        );
      }, (err: Error) => callback(err));
    },
  });
  server.on("error", (err) => ctx.log.warn({ err }, "inbound SMTP error"));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(ctx.config.inbound.port, ctx.config.inbound.host, () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  const host = ctx.config.inbound.host === "0.0.0.0" || ctx.config.inbound.host === "::" ? "127.0.0.1" : ctx.config.inbound.host;
  return {
    host,
    port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Sends a raw message to an inbound SMTP server (sandbox complaints, "Report as spam"). */
export async function sendToInbound(target: { host: string; port: number }, raw: Buffer, envelope: { from: string; to: string }): Promise<string> {
  const transport = nodemailer.createTransport({ host: target.host, port: target.port, secure: false, ignoreTLS: true, connectionTimeout: 5000 });
  try {
    const info = await transport.sendMail({ envelope: { from: envelope.from, to: [envelope.to] }, raw });
    return info.response;
  } finally {
    transport.close();
  }
}

/**
 * Where the inbound server of a running context listens (for the dashboard's
 * "Report as spam"): on the context (`ctx.inbound`), which Next.js bundles
 * reach through lib/runtime.ts.
 */
export function setInboundAddress(ctx: Pick<AppContext, "inbound">, address: { host: string; port: number } | undefined): void {
  ctx.inbound.address = address;
}
export function getInboundAddress(ctx: Pick<AppContext, "inbound">): { host: string; port: number } | undefined {
  return ctx.inbound.address;
}
