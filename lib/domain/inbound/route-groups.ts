/**
 * The routed recipients of one SMTP transaction grouped by route (docs/adr/0807):
 * one inbound message per route, listing each recipient of it once (an
 * address repeated in another case is one recipient, as the SMTP server
 * counts it), in the order RCPT gave them. Pure.
 */

export interface GroupedRecipient {
  address: string;
  mailboxHash: string;
}

export function groupByRoute<R extends GroupedRecipient & { route: { id: number } }>(recipients: readonly R[]): R[][] {
  const groups = new Map<number, R[]>();
  const seen = new Set<string>();
  for (const r of recipients) {
    const key = r.address.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const group = groups.get(r.route.id);
    if (group) group.push(r);
    else groups.set(r.route.id, [r]);
  }
  return [...groups.values()];
}
