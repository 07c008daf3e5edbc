import http from "node:http";

/**
 * Closed-loop load on POST /api/v1/email: `connections` keep-alive
 * connections, each sending its next message as soon as the previous one is
 * answered. One recipient per message (a distinct address each), so an
 * accepted MessageID is an accepted recipient. Used by bench:e2e's load
 * process and by the crash tests.
 */

export interface PostLoadOptions {
  url: string;
  apiKey: string;
  connections: number;
  /** Stop sending after this long (default: until stop()). */
  seconds?: number;
  /** A connection stops at its first network error (the server was killed) instead of retrying. */
  stopOnError?: boolean;
  /** HTML body of every message. */
  html: string;
  /** Makes this run's recipient addresses distinct from other runs': r<tag>-<n>@example.org. */
  tag: string;
  fromEmail: string;
  /**
   * Offered messages per second over all connections (default: none, each connection sends
   * its next request as soon as the last is answered). Request n starts at n / rate s, or
   * as soon as a connection is free when the server is behind.
   */
  rate?: number;
}

export interface PostLoadResult {
  /** MessageIDs of the 200 answers, in the order received. */
  ids: string[];
  /** The recipient of each id (same index). */
  recipients: string[];
  /** Milliseconds from the request's start to its 200 answer, same index as ids. */
  latenciesMs: number[];
  /** Epoch ms when the first request started and the last 200 arrived. */
  firstAt: number;
  lastAt: number;
  /** Non-200 answers by status code. */
  statuses: Record<string, number>;
  /** Requests without an answer (connection refused or reset). */
  errors: number;
}

export function recipientAddress(tag: string, n: number): string {
  return `r${tag}-${n}@example.org`;
}

export interface PostLoad {
  stop(): void;
  /** The figures so far (the live object: read, do not keep). */
  progress(): PostLoadResult;
  done: Promise<PostLoadResult>;
}

export function startPostLoad(options: PostLoadOptions): PostLoad {
  const target = new URL("/api/v1/email", options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const result: PostLoadResult = { ids: [], recipients: [], latenciesMs: [], firstAt: 0, lastAt: 0, statuses: {}, errors: 0 };
  const endAt = options.seconds === undefined ? Infinity : Date.now() + options.seconds * 1000;
  let stopped = false;
  let next = 0;

  const post = (body: string) =>
    new Promise<{ status: number; text: string; retryAfter?: number }>((resolve, reject) => {
      const req = http.request(
        target,
        {
          method: "POST",
          agent,
          headers: { Authorization: `Bearer ${options.apiKey}`, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => (text += d));
          const retryAfter = Number(res.headers["retry-after"]);
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text, ...(retryAfter > 0 && { retryAfter }) }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });

  const startAt = Date.now();
  const connection = async () => {
    while (!stopped && Date.now() < endAt) {
      const n = next++;
      if (options.rate) {
        const due = startAt + (n * 1000) / options.rate;
        if (due >= endAt) return;
        if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      }
      const to = recipientAddress(options.tag, n);
      const body = JSON.stringify({
        From: { name: "Bench", email: options.fromEmail },
        To: [{ name: "Reader", email: to }],
        Subject: "End-to-end benchmark",
        ContentType: "HTML",
        HTMLContent: options.html,
      });
      const t0 = performance.now();
      result.firstAt ||= Date.now();
      try {
        const res = await post(body);
        if (res.status === 200) {
          result.latenciesMs.push(performance.now() - t0);
          result.ids.push((JSON.parse(res.text) as { MessageID: string }).MessageID);
          result.recipients.push(to);
          result.lastAt = Date.now();
        } else {
          result.statuses[res.status] = (result.statuses[res.status] ?? 0) + 1;
          // As a client should: a 429 (the delivery backlog's pushback, docs/contract.md §18) or 503 says when to come back.
          if (res.retryAfter !== undefined) {
            const until = Math.min(Date.now() + res.retryAfter * 1000, endAt);
            while (!stopped && Date.now() < until) await new Promise((r) => setTimeout(r, 50)); // stop() ends the wait
          }
        }
      } catch {
        result.errors++;
        if (options.stopOnError || stopped) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };

  const done = Promise.all(Array.from({ length: options.connections }, connection)).then(() => {
    agent.destroy();
    return result;
  });
  return { stop: () => void (stopped = true), progress: () => result, done };
}

/** About 2 KB of HTML with one tracked link (the open pixel and link rewrite apply). */
export const BENCH_HTML = `<html><body><h1>Hello</h1>${"<p>Hello from the Mailroom end-to-end benchmark, a paragraph to pad the body.</p>".repeat(24)}<p><a href="https://example.org/offer">Offer</a></p></body></html>`;
