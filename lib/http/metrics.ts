import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * Prometheus metrics of the HTTP surface (docs/api.md, "Request ids, logs and metrics"). One registry per
 * process context (tests start several in one process): built by
 * openProcessContext and held on AppContext (`ctx.httpMetrics`); other
 * parts (queue, delivery, webhooks) register their own metrics on `registry`.
 */
export interface HttpMetrics {
  registry: Registry;
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "mailroom_" });
  const requests = new Counter({
    name: "mailroom_http_requests_total",
    help: "HTTP requests by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "mailroom_http_request_duration_seconds",
    help: "HTTP request latency by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return {
    registry,
    observe(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}
