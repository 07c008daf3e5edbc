"use server";

import { z } from "zod";
import { refuse, staffAction } from "@/lib/dashboard/action";
import { reportSandboxSpam } from "@/lib/dashboard/sandbox";

/**
 * "Report as spam" (admin, support of the account): an ARF complaint about
 * the account's captured copy goes through the inbound SMTP server, exactly
 * as a mailbox provider's feedback loop would send it; the service logs
 * `complained` and suppresses the recipient.
 */
export const reportSpamAction = staffAction("sandbox", z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER), async (id, access) => {
  let result: { ok: boolean; reason?: string };
  try {
    result = await reportSandboxSpam(access, id);
  } catch (err) {
    refuse(`The complaint could not be delivered to the inbound server (${(err as Error).message})`);
  }
  if (!result.ok) refuse(result.reason ?? "The report was not sent");
  return null;
});
