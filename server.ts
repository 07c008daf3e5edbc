/**
 * The composition root of the app process. One port: the public API (Hono,
 * lib/api) and Next.js's request handler (the dashboard) behind one HTTP
 * server. Start order: config → storage → migrations → queue → first-start
 * provisioning → HTTP → SMTP submission → inbound SMTP and the lease keeper
 * (+ the job loops when MAILROOM_WORKERS=inline) → the supervised worker
 * processes (MAILROOM_WORKERS=process, the default; docs/adr/0021).
 * Stop in reverse, but HTTP drains before the worker processes stop.
 * Importing this module starts nothing; `startServer()` does.
 */
import http from "node:http";
import path from "node:path";
import { getRequestListener } from "@hono/node-server";
import { createApiApp, isApiPath } from "./lib/api/app";
import { buildConfig, ConfigError, type Config } from "./lib/config";
import { ensureFirstStart, type FirstStartReport } from "./lib/domain/staff/bootstrap";
import { CLIENT_ADDRESS_HEADER, clientAddress } from "./lib/domain/shared/client-ip";
import { resolveDashboardSecret } from "./lib/domain/staff/dashboard-auth-secret";
import type { AppContext } from "./lib/context";
import { checkListenPorts } from "./lib/listen-ports";
import { createLogger } from "./lib/logger";
import { NODE_HEAP_FLAGS } from "./lib/node-heap-flags";
import { createStopStack, openProcessContext } from "./lib/process-context";
import { startWorkers, type WorkerOptions } from "./lib/workers/start-workers";
import { startSupervisor, type Supervisor } from "./lib/workers/supervisor";
import { startSubmissionServer } from "./lib/submission/submission-server";
import { dashboardOrigins, requestCrossSiteRefusal } from "./lib/dashboard/same-origin";

export interface StartOptions {
  config?: Config;
  /** Serve the Next.js dashboard (needs a `next build`); default config.dashboardEnabled. Tests of the API turn it off. */
  dashboard?: boolean;
  /** Next.js dev mode (hot reload) instead of the production build. */
  dev?: boolean;
  /**
   * A handler for the non-API paths in place of Next.js (with `dashboard: false`): tests mount Auth.js
   * alone there, to reach its routes through this server's request handling without a `next build`.
   */
  dashboardHandler?: http.RequestListener;
  /** Options of the inline workers (tests: the DNS of inbound sender authentication). */
  workers?: Pick<WorkerOptions, "inboundPost">;
}

export interface RunningServer {
  ctx: AppContext;
  url: string;
  port: number;
  firstStart?: FirstStartReport;
  stop(): Promise<void>;
}

export const AUTH_SECRET_REQUIRED =
  "AUTH_SECRET: required with DATABASE_URL while the dashboard is on. Every app process on the database must sign dashboard sessions with the same secret, and a generated one is kept in the data directory, which processes on a PostgreSQL server do not share (it is never kept in the database: a copy of the database would open every session). Set AUTH_SECRET to the same random value of at least 32 characters in every app process (openssl rand -base64 32), or MAILROOM_DASHBOARD=off.";

/** How long requests in flight may take to finish at stop before their connections are closed. */
const DRAIN_MS = 10_000;

/** Stops accepting, lets requests in flight answer (idle keep-alive connections close at once), then closes the rest. */
function drainHttp(server: http.Server, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * Puts the client address in CLIENT_ADDRESS_HEADER, in both views of the
 * request's headers: `headers` (what Next.js reads) and `rawHeaders` (what
 * a Fetch Request built by @hono/node-server, and Auth.js's copy of it, are
 * made of), dropping any value the client sent under that name.
 */
function setClientAddress(req: http.IncomingMessage, address: string): void {
  req.headers[CLIENT_ADDRESS_HEADER] = address;
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() !== CLIENT_ADDRESS_HEADER) raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  raw.push(CLIENT_ADDRESS_HEADER, address);
  req.rawHeaders = raw;
}

export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const config = options.config ?? buildConfig();
  const dashboard = options.dashboard ?? config.dashboardEnabled;
  // Several app processes may share DATABASE_URL and no directory: they must share AUTH_SECRET (docs/adr/0508).
  if (dashboard && config.databaseUrl && !config.auth.secret) throw new ConfigError(AUTH_SECRET_REQUIRED);
  const log = createLogger(config.logLevel);
  // Every fixed port first: a start that fails on a port must fail before provisioning (docs/adr/0203).
  await checkListenPorts(config);
  const stack = createStopStack(log);
  try {
    const ctx = await openProcessContext(config, log, stack);
    // The data directory's free space, watched by the app process (docs/adr/0007): known before the first request.
    await ctx.disk.sample();
    ctx.disk.start();
    // The delivery backlog, read by the process that accepts (docs/adr/0322): known before the first request.
    await ctx.backlog.sample();
    ctx.backlog.start();
    // The received messages waiting to be posted, read by the process that runs the inbound SMTP server (docs/adr/0049).
    await ctx.inboundBacklog.sample();
    ctx.inboundBacklog.start();
    // Credentials a failed first start never printed are issued again only when this start prints them.
    const firstStart = await ensureFirstStart(ctx, { reissueUnshown: !config.quietStart });
    // Worker processes stop after HTTP has drained and before the database: their place on the stop stack is here.
    let supervisor: Supervisor | undefined;
    stack.push(async () => supervisor?.stop());

    const api = getRequestListener(createApiApp(ctx).fetch);
    let nextHandler: http.RequestListener | undefined = options.dashboardHandler;
    if (dashboard) {
      // Before Next serves: sessions and sealed keys use it (a generated one lives in the data directory, never in the database).
      const resolved = await resolveDashboardSecret(ctx.database, { configured: config.auth.secret, dataDir: config.dataDir });
      ctx.dashboardSecret = resolved.secret;
      if (resolved.movedFromDatabase) log.info({ source: resolved.source }, "moved the dashboard's secret out of the database (docs/adr/0508)");
    }
    if (!nextHandler && dashboard) {
      const { default: next } = await import("next");
      const nextApp = next({ dev: options.dev ?? false, dir: process.cwd(), hostname: config.host, port: config.port });
      await nextApp.prepare();
      const handle = nextApp.getRequestHandler();
      nextHandler = (req, res) => void handle(req, res);
      stack.push(() => nextApp.close());
    }

    const server = http.createServer((req, res) => {
      // The one place the client address is derived (sign-in throttle, tracking, access log): never the client's own value.
      setClientAddress(req, clientAddress(req.socket.remoteAddress, req.headersDistinct["x-forwarded-for"], ctx.config.trustProxyHops));
      const pathname = (req.url ?? "/").split("?", 1)[0]!;
      if (isApiPath(pathname) || !nextHandler) return api(req, res);
      // A server action from another site: Next.js would refuse it with a 500; this is the 403 of the route handlers (docs/adr/0506).
      if (req.method === "POST" && req.headers["next-action"] !== undefined) {
        const header = (name: string) => req.headersDistinct[name]?.[0] ?? null;
        const refusal = requestCrossSiteRefusal(header, { trustProxyHops: ctx.config.trustProxyHops, allowedOrigins: dashboardOrigins(ctx) });
        if (refusal) {
          res.writeHead(403, { "Content-Type": "application/json", "Cache-Control": "no-store" }).end(JSON.stringify({ error: refusal }));
          return;
        }
      }
      return nextHandler(req, res);
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => resolve());
    });
    stack.push(() => drainHttp(server, DRAIN_MS));
    const port = (server.address() as { port: number }).port;
    const hostForUrl = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
    // PORT=0 (tests): the public URL is known only now that the port is.
    if (!config.publicUrlExplicit) ctx.publicUrl = `http://${hostForUrl === "127.0.0.1" ? "localhost" : hostForUrl}:${port}`;

    // SMTP submission beside the HTTP server (lib/submission), stopped before it.
    const submission = await startSubmissionServer(ctx);
    stack.push(submission.stop);

    // Delivery and notification workers last: they build tracking URLs from
    // the public URL, and anything accepted before they run waits in the queue.
    // This process always runs the inbound SMTP server and returns dead workers' jobs to the queue.
    const workers = await startWorkers(ctx, { workers: config.workers.mode === "inline", ...options.workers });
    stack.push(workers.stop);
    if (config.workers.mode === "process") {
      supervisor = startSupervisor({
        count: config.workers.processes,
        nice: config.workers.nice,
        log,
        child: {
          modulePath: path.join(import.meta.dirname, "bin", "mailroom.mjs"),
          args: ["worker"],
          // Not the app's --import tsx (bin/mailroom.mjs registers it): the heap flags of docs/adr/0047, and the
          // app's profiling flags, so `--cpu-prof` covers the workers too.
          execArgv: [...NODE_HEAP_FLAGS, ...process.execArgv.filter((a) => a.startsWith("--cpu-prof"))],
          // The app's own settings, its database (the embedded server it started) and its public URL (PORT=0).
          env: (index) => ({
            ...process.env,
            ...config.sourceEnv,
            DATABASE_URL: ctx.database.url,
            MAILROOM_PUBLIC_URL: ctx.publicUrl,
            // One metrics port per worker: the configured one for the first, the next ones for the others.
            ...(config.workerMetricsPort !== undefined && { MAILROOM_WORKER_METRICS_PORT: String(config.workerMetricsPort === 0 ? 0 : config.workerMetricsPort + index) }),
          }),
        },
      });
      await supervisor.ready;
    }
    return { ctx, url: `http://${hostForUrl}:${port}`, port, firstStart, stop: stack.stopAll };
  } catch (err) {
    await stack.stopAll();
    throw err;
  }
}
