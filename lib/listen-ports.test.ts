import net from "node:net";
import { describe, expect, it } from "vitest";
import { buildConfig } from "./config";
import { checkListenPorts, conflictingPorts, listenPortsOf, PortError } from "./listen-ports";

const config = (env: Record<string, string>) => buildConfig({ DATABASE_URL: "postgres://x@127.0.0.1/x", ...env });

describe("listenPortsOf", () => {
  it("lists the fixed ports of the defaults: HTTP and inbound (submission defaults fall back, the sandbox MX picks one)", () => {
    expect(listenPortsOf(config({})).map((p) => [p.variable, p.port])).toEqual([
      ["PORT", 3000],
      ["MAILROOM_INBOUND_PORT", 2525],
    ]);
  });

  it("lists every port set, and one metrics port per worker process", () => {
    const ports = listenPortsOf(
      config({ PORT: "8080", MAILROOM_SUBMISSION_PORT: "2587", MAILROOM_SUBMISSION_TLS_PORT: "2465", MAILROOM_SANDBOX_PORT: "2526", MAILROOM_WORKER_METRICS_PORT: "9100", MAILROOM_WORKER_PROCESSES: "3" }),
    );
    expect(ports.map((p) => [p.variable, p.port])).toEqual([
      ["PORT", 8080],
      ["MAILROOM_SUBMISSION_PORT", 2587],
      ["MAILROOM_SUBMISSION_TLS_PORT", 2465],
      ["MAILROOM_INBOUND_PORT", 2525],
      ["MAILROOM_SANDBOX_PORT", 2526],
      ["MAILROOM_WORKER_METRICS_PORT", 9100],
      ["MAILROOM_WORKER_METRICS_PORT", 9101],
      ["MAILROOM_WORKER_METRICS_PORT", 9102],
    ]);
  });

  it("leaves out port 0, a sandbox MX that does not run, and worker metrics without worker processes", () => {
    const ports = listenPortsOf(config({ PORT: "0", MAILROOM_INBOUND_PORT: "0", MAILROOM_SUBMISSION_PORT: "0", MAILROOM_SANDBOX_PORT: "2526", MAILROOM_WORKERS: "off", MAILROOM_WORKER_METRICS_PORT: "9100" }));
    expect(ports).toEqual([]);
    expect(listenPortsOf(config({ PORT: "0", MAILROOM_INBOUND_PORT: "0", MAILROOM_SANDBOX_PORT: "2526", MAILROOM_DELIVERY: "relay", SMTP_RELAY_URL: "smtp://r:25" }))).toEqual([]);
  });
});

describe("conflictingPorts", () => {
  it("finds two settings on one port, on the same address or a wildcard", () => {
    expect(conflictingPorts(listenPortsOf(config({ PORT: "2525" })))?.map((p) => p.variable)).toEqual(["PORT", "MAILROOM_INBOUND_PORT"]);
    expect(conflictingPorts(listenPortsOf(config({ PORT: "2525", HOST: "0.0.0.0" })))?.map((p) => p.variable)).toEqual(["PORT", "MAILROOM_INBOUND_PORT"]);
    // Worker metrics run into the HTTP port: PORT=3001, metrics 3000 and 3001.
    expect(conflictingPorts(listenPortsOf(config({ PORT: "3001", MAILROOM_WORKER_METRICS_PORT: "3000" })))?.map((p) => p.port)).toEqual([3001, 3001]);
  });

  it("accepts one port on two distinct addresses", () => {
    expect(conflictingPorts(listenPortsOf(config({ PORT: "2525", HOST: "127.0.0.2" })))).toBeUndefined();
  });
});

describe("checkListenPorts", () => {
  it("names the port and its variable when the port is taken", async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const err = await checkListenPorts(config({ PORT: "0", MAILROOM_INBOUND_PORT: String(port) })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PortError);
      expect((err as Error).message).toBe(
        `Mailroom could not start: 127.0.0.1:${port} (inbound SMTP: bounces and complaints; MAILROOM_INBOUND_PORT) is already in use (another Mailroom or another program). Stop it, or set MAILROOM_INBOUND_PORT to a free port.`,
      );
    } finally {
      busy.close();
    }
  });

  it("names the variables of a port given twice", async () => {
    await expect(checkListenPorts(config({ PORT: "2525" }))).rejects.toThrow("PORT and MAILROOM_INBOUND_PORT both name port 2525");
  });

  it("names the host variable of an address that is not the machine's", async () => {
    await expect(checkListenPorts(config({ PORT: "0", MAILROOM_INBOUND_HOST: "192.0.2.1", MAILROOM_INBOUND_PORT: "2525" }))).rejects.toThrow(
      "192.0.2.1 is not an address of this machine (inbound SMTP: bounces and complaints). Set MAILROOM_INBOUND_HOST",
    );
  });

  it("passes, and leaves the ports free, when every port can be bound", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const c = config({ PORT: String(port), MAILROOM_INBOUND_PORT: "0" });
    await checkListenPorts(c);
    await checkListenPorts(c); // closed after the check: bindable again
  });
});
