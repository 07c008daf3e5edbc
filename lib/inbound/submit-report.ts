import type { AppContext } from "../context";
import { handleInboundMessage } from "./handle-message";
import { getInboundAddress, sendToInbound } from "./inbound-server";

/**
 * Sends a report (an ARF complaint from the sandbox) back to the service
 * the way a mailbox provider would: over SMTP to this process's inbound
 * server, else to the configured one (the app's, when this is a worker
 * process), else, when none answers, straight to the inbound handler.
 */
export async function submitReport(ctx: AppContext, raw: Buffer, envelope: { from: string; to: string }): Promise<"smtp" | "in-process"> {
  const own = getInboundAddress(ctx);
  const target = own ?? (ctx.config.inbound.port ? { host: ctx.config.inbound.host, port: ctx.config.inbound.port } : undefined);
  if (target) {
    try {
      await sendToInbound(target, raw, envelope);
      return "smtp";
    } catch (err) {
      // Our own server may refuse a burst of reports from this host (421: MAILROOM_INBOUND_MAX_CLIENTS
      // or _CONNECTIONS_PER_MINUTE); the report is then handled in process rather than lost.
      if (own && (err as { responseCode?: number }).responseCode !== 421) throw err;
      ctx.log.debug({ err }, "no inbound SMTP server reachable; handling the report in process");
    }
  }
  const secret = await ctx.trackingSecret();
  await handleInboundMessage(ctx, secret, raw, { from: envelope.from, to: [envelope.to] });
  return "in-process";
}
