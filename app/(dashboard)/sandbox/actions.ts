"use server";

import { z } from "zod";
import { requireRole } from "@/lib/auth/require-role";
import { reportSandboxMessageAsSpam } from "@/lib/inbound/sandbox-inbox";
import { getServerContext } from "@/lib/runtime";

/**
 * "Report as spam" (admin, support): an ARF complaint about the captured
 * copy goes through the inbound SMTP server, exactly as a mailbox
 * provider's feedback loop would send it; the service logs `complained`
 * and suppresses the recipient.
 */
export async function reportSpamAction(rawId: unknown): Promise<{ ok: true } | { ok: false; error: string }> {
  await requireRole("sandbox");
  const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).safeParse(rawId);
  if (!id.success) return { ok: false, error: "Not a sandbox message id" };
  try {
    const result = await reportSandboxMessageAsSpam(getServerContext(), id.data);
    return result.ok ? { ok: true } : { ok: false, error: result.reason ?? "The report was not sent" };
  } catch (err) {
    return { ok: false, error: `The complaint could not be delivered to the inbound server (${(err as Error).message})` };
  }
}
