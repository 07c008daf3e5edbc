import type { AppContext } from "../context";

/**
 * Starts the `notify` queue workers when `workers` is set.
 * (Owned by the "Webhook notifications" work.)
 */
export async function startNotifications(ctx: AppContext, options: { workers: boolean }): Promise<{ stop(): Promise<void> }> {
  void ctx;
  void options;
  return { stop: async () => {} };
}
