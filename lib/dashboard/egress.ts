import "server-only";
import { forbidden } from "next/navigation";
import { egressView, loadWarmupSchedule, type EgressView } from "../delivery/egress/admin";
import { getServerContext } from "../runtime";
import { requireDashboardUser, type DashboardUser } from "./access";

/**
 * Instance → Egress (owners only, docs/egress.md): each egress address with
 * its pool, EHLO name, warm-up day and this hour's and today's volume against
 * its caps per provider: what `mailroom egress list` shows
 * (lib/delivery/egress/admin.ts). Another staff user gets the forbidden page.
 */

export const EGRESS_PATH = "/instance/egress";

export async function requireEgressOwner(): Promise<DashboardUser> {
  const user = await requireDashboardUser(EGRESS_PATH);
  if (!user.isOwner) forbidden();
  return user;
}

export async function egressViewAsOwner(owner: DashboardUser): Promise<EgressView> {
  if (!owner.isOwner) forbidden();
  const ctx = getServerContext();
  return egressView(ctx.database, await loadWarmupSchedule(ctx.config.delivery.warmupFile));
}
