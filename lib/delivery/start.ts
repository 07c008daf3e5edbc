import type { AppContext } from "../context";

/**
 * Starts the delivery side of a process: the sandbox MX and inbound SMTP
 * servers, and (when `workers`) the `deliver` queue workers.
 * (Owned by the "Delivery engine" work.)
 */
export async function startDelivery(ctx: AppContext, options: { workers: boolean }): Promise<{ stop(): Promise<void> }> {
  void ctx;
  void options;
  return { stop: async () => {} };
}
