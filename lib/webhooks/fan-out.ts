import type { LoggedEvent } from "../domain/event-log";
import type { PgBoss } from "../queue/boss";
import type { Tx } from "../storage/transaction";

/**
 * Writes one webhook_notifications row and one `notify` job per webhook of
 * the account that matches each event, inside the caller's transaction.
 * (Owned by the "Webhook notifications" work; see CONTRACT.md "Notifications".)
 */
export async function enqueueNotifications(tx: Tx, boss: PgBoss, events: LoggedEvent[]): Promise<void> {
  void tx;
  void boss;
  void events;
}
