import type { Logger } from "../logger";
import { listenOn, newListenConnection, type ListenConnection } from "../storage/listen-rows";

/**
 * LISTEN on a dedicated connection for "new work" announcements, kept alive:
 * a lost connection (database restart) is reopened with backoff (1 s, doubling
 * up to 30 s), and `onNotify` runs once after each reconnect, since
 * announcements made meanwhile were lost. The job loops poll anyway, so a
 * listener that cannot connect only costs latency.
 */
export interface Listener {
  stop(): Promise<void>;
}

export async function listenForWork(
  url: string,
  channel: string,
  onNotify: () => void,
  log: Logger,
  options: { applicationName: string; maxRetryMs?: number },
): Promise<Listener> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  let running = true;
  let client: ListenConnection | undefined;
  let retry: NodeJS.Timeout | undefined;
  let retryMs = 1000;

  const scheduleReconnect = () => {
    if (!running || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect(true);
    }, retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, maxRetryMs);
  };

  const connect = async (reconnect: boolean) => {
    const c = newListenConnection(url, options.applicationName);
    c.on("notification", () => onNotify());
    c.on("error", () => {
      void c.end().catch(() => {});
      if (client === c) {
        client = undefined;
        scheduleReconnect();
      }
    });
    client = c;
    try {
      await c.connect();
      await listenOn(c, channel);
      retryMs = 1000;
      if (reconnect) {
        log.info({ channel }, "listen connection restored");
        onNotify();
      }
    } catch (err) {
      void c.end().catch(() => {});
      if (client === c) client = undefined;
      if (running) {
        if (!reconnect) log.warn({ err, channel }, "listen failed; polling until it reconnects");
        scheduleReconnect();
      }
    }
  };

  await connect(false);
  return {
    async stop() {
      running = false;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
