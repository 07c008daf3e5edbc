import "server-only";
import { revalidatePath } from "next/cache";
import { forbidden } from "next/navigation";
import { getAccount } from "../domain/accounts/accounts";
import {
  bounceDestination,
  listQueues,
  QueueControlError,
  resumeDestination,
  retryNow,
  suspendDestination,
} from "../delivery/destinations/queue-control";
import { queueRowJson, type QueueRowJson } from "../delivery/destinations/queue-view";
import { getServerContext } from "../runtime";
import { requireDashboardUser, type DashboardUser } from "./access";
import { ActionRefusal } from "./refusal";

/**
 * Instance → Queues (owners only, docs/adr/0204): each destination with
 * pending mail or a hold, its state and last replies; suspend, resume,
 * retry now and bounce through the same queue control as `mailroom queue`
 * (lib/delivery/destinations/queue-control.ts). Another staff user gets the
 * forbidden page.
 */

export const QUEUES_PATH = "/instance/queues";

export async function requireQueuesOwner(): Promise<DashboardUser> {
  const user = await requireDashboardUser(QUEUES_PATH);
  if (!user.isOwner) forbidden();
  return user;
}

/** A destination as the page shows it (dates as ISO text: the page hands them to a client component). */
export type QueueView = QueueRowJson;

function ensureOwner(owner: DashboardUser): void {
  if (!owner.isOwner) throw new ActionRefusal("Only an owner may control the delivery queues");
}

/** The owner's refusals (a key that names nothing, a provider for bounce) are shown as they are. */
async function asOwner<T>(owner: DashboardUser, work: () => Promise<T>): Promise<T> {
  ensureOwner(owner);
  try {
    const result = await work();
    revalidatePath(QUEUES_PATH);
    return result;
  } catch (err) {
    if (err instanceof QueueControlError) throw new ActionRefusal(err.message);
    throw err;
  }
}

async function requireAccount(accountId: string | undefined): Promise<string | undefined> {
  if (!accountId) return undefined;
  if (!(await getAccount(getServerContext().database, accountId))) throw new ActionRefusal("No such account");
  return accountId;
}

export async function listQueuesAsOwner(owner: DashboardUser): Promise<QueueView[]> {
  ensureOwner(owner);
  return (await listQueues(getServerContext())).map(queueRowJson);
}

export async function suspendAsOwner(owner: DashboardUser, input: { key: string; accountId?: string; forMinutes?: number; reason: string }): Promise<null> {
  return asOwner(owner, async () => {
    const accountId = await requireAccount(input.accountId);
    const forMs = input.forMinutes ? input.forMinutes * 60_000 : undefined;
    await suspendDestination(getServerContext(), { key: input.key, accountId, forMs, reason: input.reason, placedBy: owner.email });
    return null;
  });
}

export async function resumeAsOwner(owner: DashboardUser, input: { key: string; accountId?: string }): Promise<{ released: number }> {
  return asOwner(owner, async () => {
    const released = await resumeDestination(getServerContext(), input.key, await requireAccount(input.accountId));
    if (released.length === 0) throw new ActionRefusal(`${input.key} is not held`);
    return { released: released.length };
  });
}

export async function retryNowAsOwner(owner: DashboardUser, input: { key: string }): Promise<{ recipients: number }> {
  return asOwner(owner, async () => ({ recipients: await retryNow(getServerContext(), input.key) }));
}

export async function bounceAsOwner(owner: DashboardUser, input: { key: string; reason: string }): Promise<{ failed: number }> {
  return asOwner(owner, async () => ({ failed: await bounceDestination(getServerContext(), input.key, input.reason) }));
}
