import pg from "pg";
import type { AppContext } from "../context";
import { getTrackingSecret } from "../domain/tracking-secret";
import { setInboundAddress, startInboundServer, type InboundServer } from "../inbound/inbound-server";
import { startSandboxMx } from "../inbound/sandbox-mx";
import { submitReport } from "../inbound/submit-report";
import { QUEUE, type DeliverJob } from "../queue/jobs";
import { startJobLoop, type JobLoop } from "../queue/worker-loop";
import { preparedSql } from "../storage/prepared-sql";
import { processDeliverJob } from "./deliver-job";
import { runMaintenance } from "./maintenance";
import { createFixedTransport, createMxTransport, parseRelayUrl, type MxResolver, type Transport } from "./transports";

/**
 * Starts the delivery side of a process:
 * - `inbound` (default true): the inbound SMTP server (DSN, ARF, mailto unsubscribe);
 * - `workers`: the `deliver` job loop with its transport (in sandbox mode the
 *   sandbox MX on an ephemeral loopback port), the LISTEN connection that
 *   wakes it, and the hourly `maintenance` job.
 * A separate `mailroom worker` process calls it with `{ workers: true, inbound: false }`.
 */
export interface DeliveryOptions {
  workers: boolean;
  inbound?: boolean;
  /** MX mode only: DNS answers (tests; internet DNS is outside) and port (default 25). */
  mx?: { resolver?: MxResolver; port?: number };
}

export interface DeliveryRuntime {
  stop(): Promise<void>;
}

const NOTIFY_CHANNEL = "mailroom_deliver";

export async function startDelivery(ctx: AppContext, options: DeliveryOptions): Promise<DeliveryRuntime> {
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stoppers.splice(0).reverse()) await s().catch((err: Error) => ctx.log.warn({ err }, "delivery stop step failed"));
  };
  try {
    const secret = await getTrackingSecret(ctx.database.db, ctx.config.tracking.secret);
    // The queue's expiry decides how soon a dead worker's job goes to another.
    // Jobs take it when enqueued, so every process (the API's too) sets it.
    await ctx.boss.updateQueue(QUEUE.deliver, {
      name: QUEUE.deliver,
      expireInSeconds: ctx.config.delivery.jobExpireSeconds,
      retryLimit: 20,
      retryDelay: 2,
      retryBackoff: true,
    } as never);

    let inbound: InboundServer | undefined;
    if (options.inbound ?? true) {
      inbound = await startInboundServer(ctx, secret);
      setInboundAddress(ctx, inbound);
      stoppers.push(async () => {
        setInboundAddress(ctx, undefined);
        await inbound!.stop();
      });
    }

    if (!options.workers) return { stop };

    const submit = async (raw: Buffer, envelope: { from: string; to: string }) => {
      await submitReport(ctx, raw, envelope);
    };

    // SMTP connections per destination: one per job in flight, up to 32 (measured: 16 left jobs queueing for a connection at 300 msg/s).
    const maxConnections = Math.max(2, Math.min(ctx.config.workers.concurrency, 32));
    const transportOptions = { heloName: ctx.config.delivery.heloName, maxConnections };
    let transport: Transport;
    if (ctx.config.delivery.mode === "sandbox") {
      const sandbox = await startSandboxMx(ctx, { port: ctx.config.delivery.sandboxPort, submitReport: submit });
      stoppers.push(sandbox.stop);
      transport = createFixedTransport("sandbox", { host: sandbox.host, port: sandbox.port, secure: false }, transportOptions);
    } else if (ctx.config.delivery.mode === "relay") {
      transport = createFixedTransport("relay", parseRelayUrl(ctx.config.delivery.relayUrl!), transportOptions);
    } else {
      transport = createMxTransport({
        ...transportOptions,
        resolver: options.mx?.resolver,
        port: options.mx?.port,
        allowPrivate: ctx.config.delivery.allowPrivateMx,
      });
    }
    stoppers.push(async () => transport.close());

    const timers = new Set<NodeJS.Timeout>();
    const deps = {
      ctx,
      transport,
      secret,
      onRetryScheduled: (at: number) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          loop.notify();
        }, Math.max(0, at - Date.now()) + 20);
        timer.unref();
        timers.add(timer);
      },
    };
    stoppers.push(async () => timers.forEach((t) => clearTimeout(t)));
    const loop: JobLoop = startJobLoop<DeliverJob>(ctx.boss, {
      queue: QUEUE.deliver,
      concurrency: ctx.config.workers.concurrency,
      pollIntervalMs: 1000,
      log: ctx.log,
      db: preparedSql(ctx.database.pool),
      handler: async (job) => {
        await processDeliverJob(deps, job);
      },
    });
    stoppers.push(() => loop.stop());

    stoppers.push(await listenForWork(ctx, () => loop.notify()));

    await ctx.boss.schedule(QUEUE.maintenance, "17 * * * *", { task: "retention" });
    const maintenanceWorker = await ctx.boss.work(QUEUE.maintenance, { pollingIntervalSeconds: 30 }, async () => {
      const report = await runMaintenance(ctx);
      ctx.log.info({ report }, "retention purge done");
    });
    stoppers.push(() => ctx.boss.offWork(maintenanceWorker));

    return { stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** LISTEN on a dedicated connection; reconnects while running. */
async function listenForWork(ctx: AppContext, onNotify: () => void): Promise<() => Promise<void>> {
  let running = true;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const c = new pg.Client({ connectionString: ctx.database.url, application_name: "mailroom-delivery-listen" });
    c.on("notification", () => onNotify());
    c.on("error", () => {
      c.end().catch(() => {});
      if (running && client === c) retry = setTimeout(() => void connect().catch(() => {}), 1000);
    });
    client = c;
    await c.connect();
    await c.query(`LISTEN ${NOTIFY_CHANNEL}`);
  };
  await connect().catch((err: Error) => ctx.log.warn({ err }, "LISTEN failed; delivery falls back to polling"));
  return async () => {
    running = false;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
