import type { Database } from "./database";
import { firstIdOfDay, partitionIdent, type DayPartition } from "./day-partitions";

/**
 * Whether a messages' day table still holds work that its drop would lose
 * (docs/adr/0044): a recipient of that day queued or deferred (a recipient's
 * id carries its message's day), or a message still scheduled. Two index
 * probes: the recipients' pending index of that day, the table's scheduled index.
 */
export async function messageDayHoldsWork({ pool }: Database, p: DayPartition & { lower: number; upper: number }): Promise<boolean> {
  const { rows } = await pool.query<{ busy: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM message_recipients WHERE id >= $1::bigint AND id < $2::bigint AND status IN ('queued', 'deferred'))
         OR EXISTS (SELECT 1 FROM ${partitionIdent("messages", p.name)} WHERE schedule_status = 'scheduled') AS busy`,
    [firstIdOfDay(p.lower), firstIdOfDay(p.upper)],
  );
  return rows[0]!.busy;
}
