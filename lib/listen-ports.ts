import net from "node:net";
import type { Config } from "./config";

/**
 * Every port the app process and its worker processes will listen on, checked
 * before anything else starts (docs/adr/0203): a port in use, refused, or
 * named twice fails the start at once, naming the port and the variable that
 * sets it, before the embedded PostgreSQL starts and before first-start
 * provisioning creates credentials that a failed start would never print.
 * Port 0 (any free port) and the submission defaults (which fall back, ADR
 * 0702) are not checked; the embedded PostgreSQL picks a free port itself.
 */

export interface ListenPort {
  host: string;
  port: number;
  /** The variable that sets the port. */
  variable: string;
  /** The variable that sets the address. */
  hostVariable?: string;
  /** What listens there, for the operator. */
  what: string;
}

export class PortError extends Error {}

/** The fixed ports of this configuration (pure). */
export function listenPortsOf(config: Config): ListenPort[] {
  const ports: ListenPort[] = [];
  const add = (p: ListenPort) => {
    if (p.port !== 0) ports.push(p);
  };
  add({ host: config.host, port: config.port, variable: "PORT", hostVariable: "HOST", what: "HTTP: API and dashboard" });
  if (config.submission.port !== undefined) {
    add({ host: config.submission.host, port: config.submission.port, variable: "MAILROOM_SUBMISSION_PORT", hostVariable: "MAILROOM_SUBMISSION_HOST", what: "SMTP submission, STARTTLS" });
  }
  if (config.submission.tlsPort !== undefined) {
    add({ host: config.submission.host, port: config.submission.tlsPort, variable: "MAILROOM_SUBMISSION_TLS_PORT", hostVariable: "MAILROOM_SUBMISSION_HOST", what: "SMTP submission, TLS" });
  }
  add({ host: config.inbound.host, port: config.inbound.port, variable: "MAILROOM_INBOUND_PORT", hostVariable: "MAILROOM_INBOUND_HOST", what: "inbound SMTP: bounces and complaints" });
  if (config.delivery.mode === "sandbox" && config.workers.mode !== "off") {
    add({ host: "127.0.0.1", port: config.delivery.sandboxPort, variable: "MAILROOM_SANDBOX_PORT", what: "the sandbox MX" });
  }
  if (config.workers.mode === "process" && config.workerMetricsPort !== undefined && config.workerMetricsPort !== 0) {
    for (let i = 0; i < config.workers.processes; i++) {
      add({
        host: config.host,
        port: config.workerMetricsPort + i,
        variable: "MAILROOM_WORKER_METRICS_PORT",
        hostVariable: "HOST",
        what: `/metrics of worker process ${i + 1} of ${config.workers.processes} (MAILROOM_WORKER_METRICS_PORT + ${i})`,
      });
    }
  }
  return ports;
}

const WILDCARDS = new Set(["0.0.0.0", "::", ""]);

/** Two listeners that cannot both bind: the same port on the same address, or on a wildcard address (pure). */
export function conflictingPorts(ports: ListenPort[]): [ListenPort, ListenPort] | undefined {
  for (let i = 0; i < ports.length; i++) {
    for (let j = i + 1; j < ports.length; j++) {
      const a = ports[i]!;
      const b = ports[j]!;
      if (a.port === b.port && (a.host === b.host || WILDCARDS.has(a.host) || WILDCARDS.has(b.host))) return [a, b];
    }
  }
  return undefined;
}

function describe(p: ListenPort): string {
  return `${p.host}:${p.port} (${p.what}; ${p.variable})`;
}

function probe(p: ListenPort): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", (err: NodeJS.ErrnoException) => {
      const where = describe(p);
      if (err.code === "EADDRINUSE") {
        reject(new PortError(`Mailroom could not start: ${where} is already in use (another Mailroom or another program). Stop it, or set ${p.variable} to a free port.`));
      } else if (err.code === "EACCES" || err.code === "EPERM") {
        reject(new PortError(`Mailroom could not start: no permission to listen on ${where} (ports below 1024 need root). Set ${p.variable} to 1024 or above.`));
      } else if (err.code === "EADDRNOTAVAIL" || err.code === "ENOTFOUND" || err.code === "EAI_AGAIN") {
        reject(new PortError(`Mailroom could not start: ${p.host} is not an address of this machine (${p.what}). Set ${p.hostVariable ?? "its host"} to one of its addresses, or 0.0.0.0.`));
      } else {
        reject(new PortError(`Mailroom could not start: cannot listen on ${where}: ${err.code ?? err.message}`));
      }
    });
    server.listen({ port: p.port, host: p.host, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** Throws a PortError naming the first port that cannot be bound (or that two settings share). */
export async function checkListenPorts(config: Config): Promise<void> {
  const ports = listenPortsOf(config);
  const clash = conflictingPorts(ports);
  if (clash) {
    const [a, b] = clash;
    throw new PortError(
      a.variable === b.variable
        ? `Mailroom could not start: ${a.variable} gives port ${a.port} to both ${a.what} and ${b.what}. Set it to another port.`
        : `Mailroom could not start: ${a.variable} and ${b.variable} both name port ${a.port} (${a.what}; ${b.what}). Set one of them to another port.`,
    );
  }
  for (const p of ports) await probe(p);
}
