import http from "node:http";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { createMetricsRoutes } from "./api/routes/metrics";
import type { AppContext } from "./context";
import { apiError } from "./http/errors";

/**
 * GET /metrics of a `mailroom worker` process (MAILROOM_WORKER_METRICS_PORT):
 * the deliveries and webhook attempts counted by this process's workers,
 * which no app process can report. Same route, token and format as the
 * app's /metrics; nothing else is served.
 */
export async function serveWorkerMetrics(ctx: AppContext, host: string, port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const app = new Hono();
  app.route("/", createMetricsRoutes(ctx));
  app.notFound((c) => apiError(c, 404));
  const server = http.createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as { port: number };
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${address.port}/metrics`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
