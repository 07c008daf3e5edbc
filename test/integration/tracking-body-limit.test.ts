import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRACKING_BODY_LIMIT_BYTES } from "../../lib/http/body-limit";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Bodies are bounded before they are read on the paths that take little or
 * none (/t/*, /healthz, /readyz, /metrics): 64 MiB with and without
 * Content-Length get a 413 with the error envelope (or the connection
 * closed early), and the server's memory stays flat. The bodies come from
 * a child process over a raw socket, so only the server is measured here.
 */

interface Sent {
  status: number;
  body: string;
  sent: number;
  connection: string;
}

function send(port: number, options: { method: string; path: string; bytes: number; chunked: boolean }): Promise<Sent> {
  const script = `
    const net = require("node:net");
    const { method, path, bytes, chunked, port } = ${JSON.stringify({ ...options, port })};
    const socket = net.connect(port, "127.0.0.1");
    let response = "", sent = 0, failed = false;
    socket.setEncoding("latin1");
    socket.on("data", (d) => (response += d));
    socket.on("error", () => (failed = true));
    socket.on("close", () => {
      const status = Number(/^HTTP\\/1\\.1 (\\d{3})/.exec(response)?.[1] ?? 0);
      const connection = /\\r\\nconnection: ([^\\r]*)/i.exec(response)?.[1] ?? "";
      const body = response.split("\\r\\n\\r\\n").slice(1).join("\\r\\n\\r\\n");
      process.stdout.write(JSON.stringify({ status, body, sent, connection }));
    });
    socket.on("connect", () => {
      socket.write(method + " " + path + " HTTP/1.1\\r\\nHost: localhost\\r\\nContent-Type: application/x-www-form-urlencoded\\r\\n" +
        (chunked ? "Transfer-Encoding: chunked\\r\\n" : "Content-Length: " + bytes + "\\r\\n") + "\\r\\n");
      const chunk = Buffer.alloc(65536, 120);
      const more = () => {
        while (!failed && !socket.destroyed && sent < bytes) {
          const framed = chunked ? Buffer.concat([Buffer.from(chunk.length.toString(16) + "\\r\\n"), chunk, Buffer.from("\\r\\n")]) : chunk;
          sent += chunk.length;
          if (!socket.write(framed)) return socket.once("drain", more);
        }
        if (chunked && !failed && !socket.destroyed) socket.write("0\\r\\n\\r\\n");
        // The server answers and closes; wait for that rather than close ourselves.
        setTimeout(() => socket.destroy(), 10000).unref();
      };
      more();
    });`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  return new Promise((resolve, reject) =>
    child.once("exit", () => {
      try {
        resolve(JSON.parse(out) as Sent);
      } catch (err) {
        reject(err as Error);
      }
    }),
  );
}

describe("request bodies are bounded before they are read", () => {
  let app: TestApp;
  let port: number;
  beforeAll(async () => {
    app = await startTestApp();
    port = Number(new URL(app.url).port);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const MiB = 1024 * 1024;
  const envelope = { Errors: [{ Code: 413, Message: "Request body too large" }] };

  it("answers 413 with the envelope for a declared body over the bound, reading none of it", async () => {
    const res = await app.fetch("/t/u/anything", { method: "POST", body: "x".repeat(TRACKING_BODY_LIMIT_BYTES + 1) });
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual(envelope);
    // Within the bound the route answers as before (an unknown token is a 404).
    const ok = await app.fetch("/t/u/anything", { method: "POST", body: "List-Unsubscribe=One-Click" });
    expect(ok.status).toBe(404);
  });

  it("64 MiB to /t/u, /t/o, /t/c, /healthz and /metrics, with and without Content-Length: 413 or an early close, memory flat", async () => {
    // Warm-up (the heap's first growth is not what is measured).
    await send(port, { method: "POST", path: "/t/u/warm", bytes: 8 * MiB, chunked: true });
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const probe = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const cases = [
      { method: "POST", path: "/t/u/anything", chunked: false },
      { method: "POST", path: "/t/u/anything", chunked: true },
      { method: "GET", path: "/t/o/x", chunked: false },
      { method: "GET", path: "/t/o/x.gif", chunked: true },
      { method: "GET", path: "/t/c/x", chunked: true },
      { method: "POST", path: "/healthz", chunked: true },
      { method: "GET", path: "/metrics", chunked: false },
    ];
    const results: (Sent & { case: string })[] = [];
    for (const c of cases) {
      const r = await send(port, { ...c, bytes: 64 * MiB });
      results.push({ ...r, case: `${c.method} ${c.path} ${c.chunked ? "chunked" : "Content-Length"}` });
    }
    clearInterval(probe);
    const growthMb = (peak - rss0) / MiB;
    for (const r of results) console.log(`${r.case}: ${r.status || "closed"} after ${(r.sent / MiB).toFixed(1)} MiB sent`);
    console.log(`server RSS growth over ${cases.length} × 64 MiB: ${growthMb.toFixed(1)} MB`);
    for (const r of results) {
      // 413 with the envelope, or the connection closed before an answer: never a 2xx/404 after reading it all.
      expect([413, 0]).toContain(r.status);
      if (r.status === 413) {
        expect(JSON.parse(r.body)).toEqual(envelope);
        expect(r.connection.toLowerCase()).toBe("close");
      }
      expect(r.sent).toBeLessThan(64 * MiB);
    }
    // A body read to the end fails `sent` above; one held in memory would add 64 MiB here. The peak also holds
    // V8 growing its young generation and garbage not yet collected: 0.0 to 22 MB in CI runs (16 was once the
    // bound), so the bound sits between that noise and one body.
    expect(growthMb).toBeLessThan(48);
    // Still serving.
    expect((await app.fetch("/healthz")).status).toBe(200);
  });
});
