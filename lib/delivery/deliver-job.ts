import type { AppContext } from "../context";
import { parseJsonText } from "../json-worker";
import type { DeliverEntry } from "../jobs/deliver";
import type { Classification } from "./classify";
import { parseMessageContent, type MessageContent } from "../domain/sending/email-request/message-content";
import type { MessageFactsWriter } from "../domain/tracking/tracked-links";
import { recordRound, type RoundContext, type RoundResult, type RoundWriter } from "./record-outcomes";
import type { RetryPolicy } from "./retry-schedule";
import type { Loaded, MessageLoader, RecipientRow } from "./load-messages";
import { prepareCopies } from "./copy-builder";
import { sendByDomain, type SentCopies } from "./send-by-domain";
import type { Transport } from "./transports";

export { trackingFor } from "./copy-builder";

/**
 * One message of a `deliver` job: its pending recipients (of one domain),
 * as named steps: load the round, read the stored content (or fail the
 * round when it is unreadable), prepare the copies, send them by domain,
 * record the round. Recipients already final are skipped by the load, so a
 * job retried after a crash never re-sends to them.
 */

export interface DeliveryDeps {
  ctx: AppContext;
  transport: Transport;
  secret: string;
  /** The deliver worker's group commits (start.ts): message loads, link lists and sizes, rounds' outcomes. */
  loader: MessageLoader;
  messageFacts: MessageFactsWriter;
  roundWriter: RoundWriter;
  /** Called with the time of each retry this worker scheduled (wakes the loop then, rather than at its next poll). */
  onRetryScheduled?: (atMs: number) => void;
}

interface Round {
  message: Loaded;
  recipients: RecipientRow[];
  policy: RetryPolicy;
  context: RoundContext;
}

/**
 * `jobId`: the job being run, completed in the transaction that records its
 * round (`jobCompleted`); a job that finds nothing to send records no round
 * and is left for the caller to complete.
 */
export async function processDeliverJob(deps: DeliveryDeps, entry: DeliverEntry, jobId?: string): Promise<{ sent: number; jobCompleted: boolean }> {
  const round = await loadRound(deps, entry, jobId);
  if (!round) return { sent: 0, jobCompleted: false };
  const jobCompleted = jobId !== undefined;

  const content = await readContent(deps, round);
  if (!content) return { sent: 0, jobCompleted };
  const copies = await prepareCopies({
    message: round.message,
    content,
    recipientCount: round.recipients.length,
    secret: deps.secret,
    publicUrl: deps.ctx.publicUrl,
    bounceDomain: deps.ctx.config.delivery.bounceDomain,
    log: deps.ctx.log,
  });
  let storedSize = round.message.size;
  const sent = await sendByDomain({
    recipients: round.recipients,
    build: copies.build,
    transport: deps.transport,
    // A raw MIME message's size and link list are written before its first copy goes out (copy-builder.ts).
    beforeFirstSend: async (size) => {
      if (!copies.mime || (!copies.links && size === storedSize)) return;
      await deps.messageFacts({ messageId: round.message.id, createdAt: round.message.created_at, links: copies.links, size });
      storedSize = size;
    },
    onInternalError: (recipient, err, where) => {
      const detail = { messageId: round.message.id, recipient: recipient.email, requestId: entry.requestId };
      // A database outage is logged once per outage (docs/adr/0008); a defect every time.
      if (!deps.ctx.outage.report("delivery", err, detail)) deps.ctx.log.error({ err, ...detail }, `delivery: ${where} threw; retried as an internal error`);
    },
  });
  const facts = { size: sent.size, storedSize, links: copies.mime ? undefined : copies.links };
  await recordSentRound(deps, round, facts, resultsOf(round.recipients, sent));
  return { sent: round.recipients.length, jobCompleted };
}

/** The message and those of the entry's recipients still pending; undefined when there is nothing to send. */
async function loadRound({ ctx, transport, loader }: DeliveryDeps, entry: DeliverEntry, jobId?: string): Promise<Round | undefined> {
  const ids = (entry.recipientIds ?? []).filter((n) => Number.isSafeInteger(n));
  if (!entry.messageId || ids.length === 0) return undefined;
  const message = await loader({ messageId: entry.messageId, recipientIds: ids });
  const recipients = message?.recipients ?? [];
  if (!message || recipients.length === 0) return undefined;
  return {
    message,
    recipients,
    policy: { scheduleMs: ctx.config.delivery.retryScheduleMs, maxAgeMs: ctx.config.delivery.maxAgeMs },
    context: {
      messageId: message.id,
      accountId: message.account_id,
      // A scheduled message's retries and max age count from its time, not from its acceptance (docs/adr/0125).
      acceptedAt: message.send_at ?? message.created_at,
      transport: transport.name,
      requestId: entry.requestId,
      jobId,
    },
  };
}

/** The stored content; when it cannot be read, every recipient of the round fails with the reason and undefined is returned. */
async function readContent(deps: DeliveryDeps, round: Round): Promise<MessageContent | undefined> {
  const { message } = round;
  try {
    return parseMessageContent(message.content_text === null ? message.content : await parseJsonText(message.content_text));
  } catch (err) {
    deps.ctx.log.error({ err, messageId: message.id }, "stored message content is unreadable; failing its recipients");
    const unreadable: Classification = {
      outcome: "failed",
      smtpCode: null,
      enhancedCode: "5.6.0",
      diagnostic: "The stored message could not be built",
      bounceType: "hard",
      suppress: false,
    };
    await recordRound(recorderOf(deps), round.policy, round.context, round.recipients.map((r) => ({ recipientId: r.id, email: r.email, attempts: r.attempts, classification: unreadable, mxHost: "", durationMs: 0 })));
    return undefined;
  }
}

function resultsOf(recipients: RecipientRow[], { classifications, answers }: SentCopies): RoundResult[] {
  return recipients.map((r, i) => ({
    recipientId: r.id,
    email: r.email,
    attempts: r.attempts,
    classification: classifications[i]!,
    mxHost: answers[i]?.mxHost ?? "",
    durationMs: answers[i]?.durationMs ?? 0,
    ...(answers[i]?.tls && { tls: answers[i]!.tls }),
  }));
}

async function recordSentRound(deps: DeliveryDeps, round: Round, facts: Pick<RoundContext, "size" | "storedSize" | "links">, results: RoundResult[]): Promise<void> {
  const retries = await recordRound(recorderOf(deps), round.policy, { ...round.context, ...facts }, results);
  for (const at of retries) deps.onRetryScheduled?.(at);
}

/** What recordRound takes: the process's metrics and log, the worker's round writer. */
function recorderOf({ ctx, roundWriter }: DeliveryDeps) {
  return { metrics: ctx.metrics, log: ctx.log, roundWriter };
}
