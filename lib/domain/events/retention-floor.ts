/**
 * Where an account's event log begins (docs/contract.md §7.5, docs/adr/0515):
 * the first whole UTC hour inside its retention period. An event is hidden
 * from the start of the hour in which it turns older than the period (so up
 * to an hour before it does), never after. Reads and the purge use the same
 * hour boundary, so no hour a read sums from its hourly summary is ever
 * thinned by a purge: the count of a big account never has to count an hour
 * of rows at the edge of its retention. lib/storage/retention-sql.ts is the
 * same rule in SQL.
 */

const HOUR = 3600;
const DAY = 86_400;

export function retentionFloor(nowSeconds: number, retentionDays: number): number {
  const edge = nowSeconds - retentionDays * DAY;
  const intoHour = ((edge % HOUR) + HOUR) % HOUR;
  return intoHour === 0 ? edge : edge - intoHour + HOUR;
}
