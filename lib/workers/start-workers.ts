import type { AppContext } from "../context";
import { createTlsSessionCounter } from "../delivery/tls-reports/session-counter";
import { createFixedTransport, createMxTransport, parseRelayUrl, type MxResolver, type Transport } from "../delivery/transports";
import { openDestinationGate } from "../delivery/destinations/start-gate";
import { startEgress } from "../delivery/egress/start-egress";
import { sharedBudget } from "../delivery/smtp-slots";
import { openTlsPolicies } from "../delivery/tls-policy/open-tls-policies";
import { sessionReporter } from "../delivery/tls-policy/tls-policies";
import { setInboundAddress, startInboundServer } from "../inbound/inbound-server";
import { startSandboxMx } from "../inbound/sandbox-mx";
import { submitReport } from "../inbound/submit-report";
import { deliverWorker, type DeliveryEnv } from "../delivery/start";
import { inboundPostQueue } from "../jobs/inbound-post";
import { hasQueue } from "../jobs/job-definition";
import type { JobWorker } from "../jobs/job-worker";
import { maintenanceJobs } from "../jobs/maintenance";
import { notifyQueue } from "../jobs/notify";
import { JOBS, type JobName } from "../jobs/registry";
import { maintenanceWorker } from "../maintenance/start";
import { applyQueuePolicy } from "../queue/boss";
import { startJobLeaseKeeper } from "../queue/job-lease";
import type { DispatcherOptions } from "../webhooks/dispatcher";
import { inboundPostWorker, type InboundPostOptions } from "../webhooks/inbound-post";
import { notifyWorker } from "../webhooks/start";

/**
 * The mail services of a process, composed here because they join delivery
 * and inbound (which do not import each other): the inbound SMTP server
 * (DSN, ARF, mailto unsubscribe) unless `inbound: false`, and with
 * `workers` every job of the registry (lib/jobs/registry.ts), in its order:
 * `deliver` (with its transport; in sandbox mode the sandbox MX on an
 * ephemeral loopback port), `notify`, `inbound-post` and the maintenance
 * schedules. server.ts calls it after the HTTP server starts;
 * `mailroom worker` with `{ workers: true, inbound: false }`.
 */

export interface WorkerOptions {
  workers: boolean;
  inbound?: boolean;
  /** Default true; a test's delivery-only worker turns these off. */
  notifications?: boolean;
  maintenance?: boolean;
  /** MX mode only: DNS answers (tests; internet DNS is outside) and port (default 25). */
  mx?: { resolver?: MxResolver; port?: number };
  dispatcher?: Partial<DispatcherOptions>;
  /** The `inbound-post` loop's DNS (tests): the SSRF guard's and the sender authentication's. */
  inboundPost?: InboundPostOptions;
}

export interface RunningWorkers {
  stop(): Promise<void>;
}

/** What the worker start gives the workers beside the lease: each reads its own part. */
type WorkersEnv = DeliveryEnv & { dispatcher?: Partial<DispatcherOptions>; inboundPost?: InboundPostOptions };

/**
 * What works each job of the registry, by its name: the features declare
 * their jobs (lib/jobs) and their workers (beside their handlers); this
 * composition root pairs them (docs/adr/0050). A job without a worker here
 * does not typecheck.
 */
const WORKERS: { readonly [N in JobName]: JobWorker<AppContext, WorkersEnv> } = {
  deliver: deliverWorker,
  notify: notifyWorker,
  "inbound-post": inboundPostWorker,
  maintenance: maintenanceWorker,
};

export async function startWorkers(ctx: AppContext, options: WorkerOptions): Promise<RunningWorkers> {
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stoppers.splice(0).reverse()) await s().catch((err: Error) => ctx.log.warn({ err }, "worker stop step failed"));
  };
  try {
    const secret = await ctx.trackingSecret();
    // Jobs take their queue's policy when enqueued, so every process (the API's too) applies the configured ones.
    for (const job of JOBS.filter(hasQueue)) if (job.configuredPolicy) await applyQueuePolicy(ctx.boss, job.name, job.configuredPolicy(ctx.config));

    if (options.inbound ?? true) {
      const inbound = await startInboundServer(ctx, secret);
      setInboundAddress(ctx, inbound);
      stoppers.push(async () => {
        setInboundAddress(ctx, undefined);
        await inbound.stop();
      });
    }
    // Every process returns the jobs of dead workers to the queue; one that runs loops also holds a lease.
    // Started before the loops (it reclaims first), stopped after them (it releases what they left).
    const lease = await startJobLeaseKeeper(ctx.database.url, {
      log: ctx.log,
      register: options.workers,
      role: options.workers ? "worker" : "app",
    });
    stoppers.push(lease.stop);
    if (!options.workers) return { stop };

    const transport = await openTransport(ctx, options, secret, stoppers);
    const env = { lease, transport, secret, dispatcher: options.dispatcher, inboundPost: options.inboundPost };
    for (const job of JOBS) {
      if (turnedOff(job.name, options)) continue;
      const running = await WORKERS[job.name].start(ctx, env);
      stoppers.push(running.stop);
    }
    return { stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Whether the options turn a job off (a test's delivery-only worker). */
function turnedOff(name: string, options: WorkerOptions): boolean {
  if (name === notifyQueue.name || name === inboundPostQueue.name) return !(options.notifications ?? true);
  if (name === maintenanceJobs.name) return !(options.maintenance ?? true);
  return false;
}

/** The delivery transport of the configured mode; its stop (and the sandbox MX's) goes on `stoppers`. */
async function openTransport(ctx: AppContext, options: WorkerOptions, secret: string, stoppers: (() => Promise<void>)[]): Promise<Transport> {
  // SMTP connections per destination: one per job in flight, up to 32 (measured: 16 left jobs queueing for a connection at 300 msg/s).
  const maxConnections = Math.max(2, Math.min(ctx.config.workers.concurrency, 32));
  // Per-phase limits, stall time and slot wait (docs/adr/0321): the relay's (shorter) towards the relay and the sandbox MX.
  const { smtp } = ctx.config.delivery;
  const base = {
    heloName: ctx.config.delivery.heloName,
    maxConnections,
    slotWaitMs: smtp.slotWaitMs,
    // Transactions that get no answer never hold the last of this process's delivery job slots.
    shared: sharedBudget(ctx.config.workers.concurrency),
    log: ctx.log,
  };
  const transportOptions = { ...base, ...smtp.relay };
  let transport: Transport;
  if (ctx.config.delivery.mode === "sandbox") {
    const sandbox = await startSandboxMx(ctx, {
      port: ctx.config.delivery.sandboxPort,
      secret,
      submitReport: async (raw, envelope) => void (await submitReport(ctx, raw, envelope)),
    });
    stoppers.push(sandbox.stop);
    // Our own process on loopback never tarpits: a slow answer there is load (a busy database), and
    // deferring copies untried for it would only delay them by a retry. No shared-budget refusals.
    transport = createFixedTransport("sandbox", { host: sandbox.host, port: sandbox.port, secure: false }, { ...transportOptions, shared: undefined });
  } else if (ctx.config.delivery.mode === "relay") {
    // Holds, shaping rules and back-off of the destinations (docs/adr/0324); the sandbox MX is ours, never shaped.
    const destinations = await openDestinationGate(ctx);
    stoppers.push(destinations.stop);
    transport = createFixedTransport("relay", parseRelayUrl(ctx.config.delivery.relayUrl!), { ...transportOptions, gate: destinations.gate });
  } else {
    const destinations = await openDestinationGate(ctx);
    stoppers.push(destinations.stop);
    // TLS-RPT's counter of this process (docs/adr/0328): stopped after the transport (stoppers run in reverse), so its last sessions are flushed.
    const tlsSessions = ctx.config.delivery.tlsReports.enabled ? createTlsSessionCounter(ctx.database, { log: ctx.log }) : undefined;
    if (tlsSessions) stoppers.push(tlsSessions.stop);
    const tls = openTlsPolicies(ctx.config.delivery.tls, { dnsServers: ctx.config.delivery.dnsServers, allowPrivate: ctx.config.delivery.allowPrivateMx, log: ctx.log, sessions: tlsSessions, database: ctx.database });
    // Egress addresses and their warm-up (docs/egress.md): none declared, the kernel picks the source.
    const egress = await startEgress(ctx);
    stoppers.push(egress.stop);
    transport = createMxTransport({
      ...base,
      ...smtp.mx,
      gate: destinations.gate,
      tlsPolicies: tls.policies,
      tlsCa: tls.ca,
      onTlsSession: tls.policies?.sessions ? sessionReporter(tls.policies.sessions) : undefined,
      egress,
      // MAILROOM_DNS_SERVERS and MAILROOM_MX_PORT: a test rig's fake internet (test/support/fake-dns.ts).
      resolver: options.mx?.resolver,
      dnsServers: ctx.config.delivery.dnsServers,
      port: options.mx?.port ?? ctx.config.delivery.mxPort,
      allowPrivate: ctx.config.delivery.allowPrivateMx,
    });
  }
  stoppers.push(async () => transport.close());
  return transport;
}
