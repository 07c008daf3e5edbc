/**
 * The scopes of an API key (docs/contract.md §17.2, docs/adr/0130): the one
 * list, read by the api_keys column type, the scope policy
 * (lib/domain/accounts/key-scope.ts), the CLI and the dashboard.
 */
export const API_KEY_SCOPES = ["full", "send", "read"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}

/** At most this many sender domains per key: the list is checked on every send. */
export const MAX_KEY_SENDER_DOMAINS = 50;
