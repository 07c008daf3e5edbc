"use server";

import { z } from "zod";
import { ownerAction, staffAction, type ActionResult } from "@/lib/dashboard/action";
import { resumeSendingAsOwner } from "@/lib/dashboard/reputation";
import { apiFor } from "@/lib/dashboard/api-for";
import { loadOverview, type OverviewData } from "./_lib/load-overview";

export type OverviewResult = ActionResult<OverviewData>;

const text = z.string().max(40).optional().catch(undefined);

/** The overview's numbers for a range (react-query refetches through this). */
export const getOverviewAction = staffAction(
  "overview",
  z.object({ range: text, from: text, to: text, source: text, by: text }).catch({}),
  async (params, access) => loadOverview(await apiFor(access, "overview"), params),
);

/** An owner resumes the sending of an account the reputation guardrails paused (docs/adr/0136). */
export const resumeSendingAction = ownerAction(z.object({ accountId: z.uuid("Not an account id") }), (input, owner) =>
  resumeSendingAsOwner(owner, input.accountId),
);
