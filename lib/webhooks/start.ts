import type { AppContext } from "../context";
import { NotificationDispatcher, defaultDispatcherOptions, type DispatcherOptions, type DispatcherStats } from "./dispatcher";

/**
 * Starts the `notify` queue workers when `workers` is set (server.ts, or
 * `mailroom worker`). Without workers, notifications wait in the outbox and
 * their jobs in the queue until some process runs them.
 */
export async function startNotifications(
  ctx: AppContext,
  options: { workers: boolean; dispatcher?: Partial<DispatcherOptions> },
): Promise<{ stop(): Promise<void>; stats?: DispatcherStats }> {
  if (!options.workers) return { stop: async () => {} };
  const dispatcher = new NotificationDispatcher(ctx, {
    ...defaultDispatcherOptions(ctx.config.webhooks.timeoutMs),
    ...options.dispatcher,
  });
  await dispatcher.start();
  return { stop: () => dispatcher.stop(), stats: dispatcher.stats };
}
