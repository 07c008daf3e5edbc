import type { Database } from "../../storage/database";
import { deleteInboundRoute, insertInboundRoute, isVerifiedDomainOf, listInboundRoutes, type InboundRouteRow } from "../../storage/inbound-rows";
import { DomainError } from "../shared/domain-error";
import type { WebhookUrlCheck } from "../webhooks/webhooks";
import { normaliseMatch } from "./route-match";

/**
 * Inbound routes of an account (docs/contract.md §13.1). The Match's domain
 * must be a verified domain of the account (the sending domains); the URL
 * passes the same check as a webhook's (the SSRF guard, injected by the caller).
 */

/** Routes an account may hold. */
export const MAX_INBOUND_ROUTES_PER_ACCOUNT = 100;

export class InboundMatchInvalidError extends DomainError {
  constructor() {
    super("Match must be an address (support@in.example.com) or a whole domain (*@in.example.com)");
  }
}
export class InboundDomainNotVerifiedError extends DomainError {
  constructor(domain: string) {
    super(`${domain} is not a verified domain of the account`);
  }
}
export class InboundRouteTakenError extends DomainError {
  constructor(match: string) {
    super(`A route for ${match} already exists`);
  }
}
export class InboundRouteLimitError extends DomainError {
  constructor() {
    super(`An account has at most ${MAX_INBOUND_ROUTES_PER_ACCOUNT} inbound routes`);
  }
}

export async function createInboundRoute(
  database: Database,
  accountId: string,
  input: { match: string; webhookUrl: string },
  checkUrl: WebhookUrlCheck,
): Promise<InboundRouteRow> {
  const match = normaliseMatch(input.match);
  if (!match) throw new InboundMatchInvalidError();
  if (!(await isVerifiedDomainOf(database, accountId, match.domain))) throw new InboundDomainNotVerifiedError(match.domain);
  await checkUrl(input.webhookUrl);
  const existing = await listInboundRoutes(database, accountId);
  if (existing.length >= MAX_INBOUND_ROUTES_PER_ACCOUNT) throw new InboundRouteLimitError();
  const row = await insertInboundRoute(database, { accountId, match: match.match, webhookUrl: input.webhookUrl });
  if (!row) throw new InboundRouteTakenError(match.match);
  return row;
}

export const listRoutes = (database: Database, accountId: string) => listInboundRoutes(database, accountId);

/** False when the account has no route with that id. */
export async function deleteRoute(database: Database, accountId: string, id: number): Promise<boolean> {
  if (!Number.isSafeInteger(id) || id <= 0) return false;
  return deleteInboundRoute(database, accountId, id);
}
