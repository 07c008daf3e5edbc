/**
 * lib/domain/events/retention-floor.ts in SQL: the first whole UTC hour inside an
 * account's retention period (docs/adr/0515). `now` and `days` are SQL
 * expressions of Unix seconds and days.
 */
export function retentionFloorSql(now: string, days: string): string {
  const edge = `(${now} - ${days}::bigint * 86400)`;
  return `(${edge} + ((3600 - ${edge} % 3600) % 3600 + 3600) % 3600)`;
}

/** Account $1's retention floor, read in the statement (an init plan: partitions before it are pruned at run time). */
export const RETAINED_FROM = `(SELECT ${retentionFloorSql("extract(epoch FROM now())::bigint", "retention_days")} FROM accounts WHERE id = $1)`;
