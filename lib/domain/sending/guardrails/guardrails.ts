import { clearReputationWarning, markReputationWarning, markSendingPaused } from "../../../storage/reputation-rows";
import { accountAdmins, systemSender } from "../../accounts/system-sender";
import type { RollupScheduler } from "../../events/event-counts";
import { sendEmail, type SendDeps } from "../send-email";
import { readReputation, type GuardrailSettings } from "./reputation";
import { reputationEmail } from "./reputation-warning-email";

/**
 * The reputation guardrails' transitions (docs/adr/0136): an evaluation
 * after bounces and complaints warns or pauses the account; an owner
 * resumes it (resume.ts). The API and SMTP submission read the pause with the key
 * (lib/domain/accounts/api-keys.ts), so a pause takes effect within the
 * key cache's seconds in every process.
 */

export interface GuardrailDeps extends SendDeps {
  config: { guardrails: GuardrailSettings; auth: { invitationFrom?: string } };
  publicUrl: string;
  rollups?: RollupScheduler;
}

/** Evaluates the account's rates and makes the transition they call for; returns the level they are at. */
export async function evaluateGuardrails(deps: GuardrailDeps, accountId: string): Promise<"ok" | "warning" | "paused"> {
  const rep = await readReputation(deps.database, deps.config.guardrails, accountId, { rollups: deps.rollups });
  if (!rep) return "ok";
  const { level, reason } = rep.assessed;
  if (level === "paused" && reason) {
    if (await markSendingPaused(deps.database, accountId, reason)) {
      deps.log.warn({ accountId, reason }, "account sending paused by the reputation guardrails");
      await tellAdmins(deps, accountId, "paused", reason);
    }
  } else if (level === "warning" && reason) {
    if (await markReputationWarning(deps.database, accountId, reason)) {
      deps.log.warn({ accountId, reason }, "account reputation past its warning threshold");
      await tellAdmins(deps, accountId, "warning", reason);
    }
  } else if (rep.row.reputationWarnedAt && rep.row.sendingPausedAt === null) {
    await clearReputationWarning(deps.database, accountId);
  }
  return level;
}

/** Never throws: an email that cannot be sent is logged (the dashboard and GET /api/v1/reputation still show the state). */
async function tellAdmins(deps: GuardrailDeps, accountId: string, level: "warning" | "paused", reason: string): Promise<void> {
  try {
    const sender = await systemSender(deps.database, deps.config.auth.invitationFrom);
    if (!sender) {
      deps.log.warn({ accountId }, "reputation guardrail: the admins are not emailed: no default account key or From address (MAILROOM_INVITATION_FROM)");
      return;
    }
    const { accountName, emails } = await accountAdmins(deps.database, accountId);
    for (const to of emails) {
      const body = reputationEmail({ from: sender.from, to, accountName, level, reason, dashboardLink: `${deps.publicUrl}/a/${accountId}/settings` });
      const result = await sendEmail(deps, sender.key, body);
      if (!result.ok) deps.log.warn({ accountId, to, errors: result.errors }, "the reputation guardrail email was refused");
    }
  } catch (err) {
    deps.log.error({ err, accountId }, "telling the admins of a reputation guardrail failed");
  }
}
