import dns from "node:dns/promises";
import type { DNSResolver } from "mailauth";
import { cachedResolver } from "../net/dns-answer-cache";
import type { AppContext } from "../context";
import { buildInboundPayload, payloadJsonBytes, type BuiltInboundPayload } from "../domain/inbound/payload";
import { keptPayloadJson, postedPayloadJson } from "../domain/inbound/stored-payload";
import { signDownloadToken } from "../domain/inbound/download-token";
import { messageOfReplyTag } from "../domain/inbound/reply-address";
import { INBOUND_WAKE_CHANNEL, findAccountMessage, findRepliedMessage, recordFirstInboundAttempt, recordInboundAttempt, withWholeRaw, type InboundForPost, type InboundKey, type LoadedInboundRow, type PayloadToSave } from "../storage/inbound-rows";
import { enqueueMany } from "../queue/boss";
import { inboundPostQueue, type InboundPostJob } from "../jobs/inbound-post";
import { listenForWork } from "../queue/listen";
import type { JobWorker, JobWorkerEnv } from "../jobs/job-worker";
import { SETTLED, startJobLoop } from "../queue/worker-loop";
import { loadInboundRowsForPost, recordFinalInboundAttempts, type FinalInboundAttempt } from "../storage/inbound-post-batches";
import { createGroupCommit } from "../storage/group-commit";
import { completeJobs } from "../storage/job-rows";
import { isRowDataError } from "../storage/sqlstate";
import { databaseFaultOf } from "../storage/unavailable";
import type { Queryable } from "../storage/database";
import { preparedSql } from "../storage/prepared-sql";
import { withTransaction } from "../storage/transaction";
import { destinationOf } from "./destination-limiter";
import { PostLanes } from "./post-lanes";
import { createAgents, postJson, type AttemptResult, type PostOptions } from "./http-post";
import { verdictOf, type AttemptVerdict } from "./retry-policy";
import { standardWebhookSignatureInSteps } from "./signing";
import type { Resolver } from "./ssrf-guard";

/**
 * The `inbound-post` job (docs/contract.md §13.3): posts a received message's
 * JSON to its route's URL, signed with the account's signing key and the
 * Standard Webhooks headers (`webhook-id` the same on every attempt), on the
 * webhook retry schedule. A 403 or 406 answer stops the retries. Each
 * attempt is recorded, and the next one enqueued, in one transaction.
 *
 * One receiver cannot hold the posts of every account (docs/adr/0048): a
 * worker process runs at most `perDestination` posts to one URL origin at
 * once (post-lanes.ts). A job whose receiver has that many running waits at
 * most `laneWaitMs` for one of them to end, and is then handed back (a new
 * job due `deferMs` later, the same attempt count), its loop slot free for
 * the next job.
 */

/** Posts running to one receiver (URL origin) at once in one worker process: half the loop's slots. */
export const INBOUND_POSTS_PER_DESTINATION = 8;
/** How long a post waits for its receiver's slot: a receiver that answers in time frees one well within it. */
export const INBOUND_LANE_WAIT_MS = 200;
/** A job handed back because its receiver's posts did not end in time is due again after this. */
export const INBOUND_DEFER_MS = 2_000;

/** 2xx delivered; 403 and 406 refuse (no retry); anything else follows the schedule (docs/adr/0801). */
export function inboundVerdictOf(statusCode: number, attemptsSoFar: number, scheduleMs: readonly number[]): AttemptVerdict {
  if (statusCode === 403) return { kind: "refused" };
  return verdictOf(statusCode, attemptsSoFar, scheduleMs);
}

/** The Standard Webhooks `webhook-id` of an inbound message: the same on every attempt and replay. */
export function inboundWebhookId(messageId: string): string {
  return `msg_mailroom_inbound_${messageId}`;
}

export async function signInboundPost(signingKey: string, messageId: string, body: Buffer, now = new Date()): Promise<Record<string, string>> {
  const id = inboundWebhookId(messageId);
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "Mailroom-Inbound/1.0",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await standardWebhookSignatureInSteps(signingKey, id, timestamp, body),
  };
}

export interface InboundPostOptions {
  /** SSRF guard's DNS (tests). */
  resolver?: Resolver;
  /** DNS of the sender's SPF, DKIM and DMARC records (tests: internet DNS is outside). */
  authResolver?: DNSResolver;
  /** Default INBOUND_POSTS_PER_DESTINATION. */
  perDestination?: number;
  /** Default INBOUND_LANE_WAIT_MS. */
  laneWaitMs?: number;
  /** Default INBOUND_DEFER_MS. */
  deferMs?: number;
}

/**
 * How a post loads its row and records a final attempt: the posting loop
 * batches those of the posts that run at once (lib/storage/inbound-post-batches.ts).
 */
export interface InboundPostStatements {
  loadRow(key: InboundKey): Promise<LoadedInboundRow | undefined>;
  recordFinal(item: FinalInboundAttempt): Promise<void>;
  /** Completes the job and enqueues its copy for later, in one transaction (handBackInboundPosts). */
  handBack(item: HandedBack): Promise<void>;
}

/** A job given back without an attempt: its payload and the id of the job that carried it. */
export interface HandedBack {
  job: InboundPostJob;
  jobId: string;
}

/** Where a post waits for its receiver: the process's slots by destination, and how long it waits for one. */
export interface InboundPostLanes {
  lanes: PostLanes;
  waitMs: number;
}

/** Hands jobs back: each one's copy due `delayMs` from now, the carrying jobs completed, in one transaction. */
export async function handBackInboundPosts(ctx: Pick<AppContext, "database" | "boss">, items: HandedBack[], delayMs: number): Promise<void> {
  const startAfter = new Date(Date.now() + delayMs);
  await withTransaction(ctx.database, async (tx) => {
    await enqueueMany(ctx.boss, inboundPostQueue, items.map((i) => ({ payload: i.job, startAfter })), preparedSql(tx));
    await completeJobs(preparedSql(tx), inboundPostQueue.name, items.map((i) => i.jobId));
  });
}

/**
 * Works one job: resolves with nothing when the loop is to complete the job,
 * with SETTLED when it was handed back (its receiver had all its posts running).
 */
export async function postInboundMessage(
  ctx: AppContext,
  job: InboundPostJob,
  jobId: string,
  post: PostOptions,
  options: InboundPostOptions,
  statements: InboundPostStatements,
  lanes: InboundPostLanes,
): Promise<void | typeof SETTLED> {
  const jobKey = { id: job.inboundMessageId, receivedAt: job.receivedAt === undefined ? undefined : new Date(job.receivedAt) };
  const loaded = await statements.loadRow(jobKey);
  // Deleted (expired), done, or another job already made this attempt.
  if (!loaded || loaded.status !== "pending" || loaded.attempts !== job.attempts) return;
  // Before the message is read whole or made into its JSON: a job handed back costs only its load.
  const release = await lanes.lanes.acquire(destinationOf(loaded.webhook_url), lanes.waitMs);
  if (!release) {
    await statements.handBack({ job, jobId });
    return SETTLED;
  }
  try {
    await attemptPost(ctx, jobKey, loaded, post, options, statements);
  } finally {
    release();
  }
}

/** One attempt to post a loaded message: builds (or reads) its JSON, posts it, records the attempt. */
async function attemptPost(
  ctx: AppContext,
  jobKey: InboundKey,
  loaded: LoadedInboundRow,
  post: PostOptions,
  options: InboundPostOptions,
  statements: InboundPostStatements,
): Promise<void> {
  const row = await withWholeRaw(ctx.database, loaded, jobKey);
  if (!row) return;
  // The JSON as first built, bytes straight to the post (kept with its attempt, large attachments left out);
  // a retry posts the kept text, those attachments put back from the raw message (docs/adr/0807).
  let body: Buffer | PayloadError;
  let toSave: PayloadToSave | undefined;
  try {
    if (row.payload === null) {
      ({ toSave, posted: body } = await buildPayload(ctx, row, options));
    } else body = await retryBody(row.payload, row.raw);
  } catch (err) {
    // A message that cannot be made into its JSON counts as a failed attempt with the reason, on the retry
    // schedule, so that it ends `failed` rather than pending for ever; the database gone is an outage (rethrown).
    if (!(err instanceof PayloadError)) throw err;
    ctx.log.error({ err: err.cause, inboundMessageId: row.id }, "inbound message could not be made into its JSON");
    body = err;
  }
  const result: AttemptResult =
    body instanceof PayloadError
      ? { statusCode: 0, body: "", bodyExcerpt: "", error: `internal error: the message could not be made into its JSON (${body.message})`, startedAt: new Date(), durationMs: 0 }
      : await postJson(row.webhook_url, body, await signInboundPost(row.signing_key, row.id, body), post);
  const attempts = row.attempts + 1;
  const verdict = inboundVerdictOf(result.statusCode, attempts, ctx.config.webhooks.retryScheduleMs);
  const next = verdict.kind === "retry" ? new Date(Date.now() + verdict.delayMs) : null;
  const status = verdict.kind === "delivered" ? "delivered" : verdict.kind === "retry" ? "pending" : "failed";
  const error = result.error ?? (verdict.kind === "refused" ? `${result.statusCode}: receiver refused, not retried` : verdict.kind === "exhausted" ? "retries exhausted" : undefined);
  const attempt = { startedAt: result.startedAt, durationMs: result.durationMs, statusCode: result.statusCode, body: result.body, error };
  const key = { id: row.id, receivedAt: row.received_at };
  if (next) {
    await withTransaction(ctx.database, async (tx) => {
      await recordAttempt(tx, true, key, attempt, { status, nextAttemptAt: next }, toSave);
      const payload = { inboundMessageId: row.id, attempts, receivedAt: row.received_at.getTime() };
      await enqueueMany(ctx.boss, inboundPostQueue, [{ payload, startAfter: next }], preparedSql(tx));
    });
  } else {
    // A final attempt is one statement (its insert and update in one WITH): atomic without BEGIN and COMMIT.
    await statements.recordFinal({ key, attempt, status: verdict.kind === "delivered" ? "delivered" : "failed", payload: toSave });
  }
  ctx.log.info({ inboundMessageId: row.id, status: result.statusCode, attempt: attempts, verdict: verdict.kind }, "inbound post attempt");
}

/** A failure to make a message into its JSON that says nothing about the database (a parser's, or the row's data). */
class PayloadError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message.slice(0, 200) : String(cause).slice(0, 200), { cause });
  }
}

type Attempt = Parameters<typeof recordInboundAttempt>[3];
type AttemptState = Parameters<typeof recordInboundAttempt>[4];

/** Records the attempt, with the JSON it posted when this was the first (docs/adr/0801). */
async function recordAttempt(q: Queryable, inTransaction: boolean, key: InboundKey, attempt: Attempt, state: AttemptState, toSave: PayloadToSave | undefined): Promise<void> {
  if (toSave) await recordFirstInboundAttempt(q, inTransaction, key, attempt, state, toSave);
  else await recordInboundAttempt(q, inTransaction, key, attempt, state);
}

/** A retry's bytes from the kept JSON (its large attachments again from the raw message); a failure is the message's, not the database's. */
async function retryBody(kept: string, raw: Buffer): Promise<Buffer> {
  try {
    return await postedPayloadJson(kept, raw);
  } catch (err) {
    throw new PayloadError(err);
  }
}

/** The first attempt's JSON, built from the raw message: the bytes to post, and what is kept of them with the fields the lists show. */
async function buildPayload(ctx: AppContext, row: InboundForPost, options: InboundPostOptions): Promise<{ posted: Buffer; toSave: PayloadToSave }> {
  // The process's one read of the secret (two statements per message before: the profile of bench:inbound showed them).
  const secret = await ctx.trackingSecret();
  // In-Reply-To/References win; a verified reply address (any recipient's) answers when they name no message of the account.
  const recipients = row.recipients ?? [{ Email: row.original_recipient, MailboxHash: row.mailbox_hash }];
  const byAddress = recipients.map((r) => messageOfReplyTag(secret, r.MailboxHash)).find((id) => id !== undefined);
  try {
    const built: BuiltInboundPayload = await buildInboundPayload({
      id: row.id,
      accountId: row.account_id,
      raw: row.raw,
      originalRecipient: row.original_recipient,
      mailboxHash: row.mailbox_hash,
      recipients,
      envelope: { mailFrom: row.mail_from, remoteIp: row.remote_ip, helo: row.helo },
      inlineBytes: ctx.config.inbound.inlineBytes,
      downloadUrl: (index) => `${ctx.publicUrl}/t/inbound/${signDownloadToken(secret, row.id, index, row.expires_at)}`,
      findReplied: async (refs) =>
        (await findRepliedMessage(ctx.database, row.account_id, refs)) ?? (byAddress ? await findAccountMessage(ctx.database, row.account_id, byAddress) : undefined),
      resolver: options.authResolver,
      mta: ctx.config.delivery.heloName,
    });
    const { payload } = built;
    const posted = await payloadJsonBytes(built);
    const kept = await keptPayloadJson(built, posted);
    return { posted, toSave: { payloadJson: kept, subject: payload.Subject.slice(0, 998), fromEmail: payload.From.slice(0, 320), repliedToMessageId: payload.RepliedToMessageID } };
  } catch (err) {
    if (databaseFaultOf(err)) throw err; // findReplied's queries: an outage, not the message
    throw new PayloadError(err);
  }
}

/** How a worker process works the `inbound-post` job (lib/jobs/inbound-post.ts); `inboundPost` sets its DNS (tests). */
export const inboundPostWorker: JobWorker<AppContext, { inboundPost?: InboundPostOptions }> = {
  start: (ctx, env) => startInboundPosting(ctx, { ...env.inboundPost, lease: env.lease }),
};

/** The `inbound-post` job loop of a worker process, woken by the commits of received messages. */
export async function startInboundPosting(
  ctx: AppContext,
  options: InboundPostOptions & Partial<JobWorkerEnv> & { concurrency?: number } = {},
): Promise<{ stop(): Promise<void> }> {
  const agents = createAgents(16);
  // Every message of a sender asks the same questions: one lookup each, kept a minute (docs/adr/0806).
  const authResolver = options.authResolver ?? cachedResolver<string[][] | string[]>((name, rrtype) => dns.resolve(name, rrtype) as Promise<string[][] | string[]>);
  const post: PostOptions = { timeoutMs: ctx.config.webhooks.timeoutMs, allowPrivate: ctx.config.webhooks.allowPrivate, resolver: options.resolver, agents };
  // The posts that run at once share their statements: up to 16 rows loaded, 16 attempts recorded, by one.
  const statements: InboundPostStatements = {
    loadRow: createGroupCommit((keys: InboundKey[]) => loadInboundRowsForPost(ctx.database, keys), { maxBatch: 16, maxInFlight: 2 }),
    recordFinal: createGroupCommit((items: FinalInboundAttempt[]) => recordFinalInboundAttempts(ctx.database, items), {
      maxBatch: 16,
      maxInFlight: 2,
      isolate: isRowDataError,
    }),
    handBack: createGroupCommit(
      async (items: HandedBack[]) => {
        await handBackInboundPosts(ctx, items, options.deferMs ?? INBOUND_DEFER_MS);
        return items.map(() => undefined);
      },
      { maxBatch: 16, maxInFlight: 1 },
    ),
  };
  const lanes: InboundPostLanes = { lanes: new PostLanes(options.perDestination ?? INBOUND_POSTS_PER_DESTINATION), waitMs: options.laneWaitMs ?? INBOUND_LANE_WAIT_MS };
  const loop = startJobLoop(ctx.boss, {
    queue: inboundPostQueue,
    concurrency: options.concurrency ?? 16,
    pollIntervalMs: 1000,
    log: ctx.log,
    outage: (err, detail) => ctx.outage.report("inbound", err, detail) !== undefined,
    // pg-boss's fetch and complete, planned on every call otherwise (as much as their run).
    db: preparedSql(ctx.database),
    lease: options.lease,
    handler: (job, meta) => postInboundMessage(ctx, job, meta.id, post, { ...options, authResolver }, statements, lanes),
  });
  const listener = await listenForWork(ctx.database.url, INBOUND_WAKE_CHANNEL, () => loop.notify(), ctx.log, { applicationName: "mailroom-inbound-listen" });
  return {
    async stop() {
      await listener.stop();
      await loop.stop();
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
