import http from "node:http";

/**
 * An open-loop load generator: one request every 1/rate seconds whatever
 * the answers do (autocannon's overallRate sends each second's requests in
 * a burst, which measures queueing, not latency). Returns latency
 * percentiles in ms.
 */
export async function pacedLoad(
  url: string,
  headers: Record<string, string>,
  rate: number,
  seconds: number,
): Promise<{ sent: number; p50: number; p99: number; max: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  let errors = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const req = http.get(url, { agent, headers }, (res) => {
        res.resume();
        res.on("end", () => {
          if (res.statusCode === 200) latencies.push(performance.now() - t0);
          else errors++;
          resolve();
        });
      });
      req.on("error", () => {
        errors++;
        resolve();
      });
    });
  const total = Math.round(rate * seconds);
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(one());
  }
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10;
  return { sent: total, p50: at(0.5), p99: at(0.99), max: at(1), errors };
}
