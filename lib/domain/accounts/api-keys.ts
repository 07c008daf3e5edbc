import { createHash, randomBytes } from "node:crypto";
import type { ApiKeyScope } from "../../contract/api-keys";
import { insertApiKeyRow, revokeApiKeyRow, selectApiKeyRows, selectKeyWithAccount, writeKeyLastUsed, type ApiKeyRow } from "../../storage/api-key-rows";
import type { Queryable } from "../../storage/database";
import { normalizeKeySenderDomains } from "./key-scope";
import { effectiveLimits, type Limits } from "./plans";
import { ExpiringMap } from "../shared/expiring-map";
import { pick } from "../shared/pick";

/**
 * API keys: `mr_` + 43 base64url characters (32 random bytes). Only the
 * SHA-256 of a key is stored (a slow hash buys nothing for 256 bits of
 * entropy), with its first 11 characters as a visible prefix. Lookup is by
 * hash through a unique index, so no comparison leaks how much of a guessed
 * key matched.
 */

export const KEY_PREFIX_LENGTH = 11;

export function generateApiKey(): string {
  return `mr_${randomBytes(32).toString("base64url")}`;
}

export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

export interface ApiKeyInfo {
  id: string;
  accountId: string;
  label: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** docs/adr/0130-scoped-api-keys.md */
  scope: ApiKeyScope;
  /** The From domains it may send from (lowercase ASCII); null: any verified domain of its account. */
  senderDomains: string[] | null;
}

export interface KeyOptions {
  scope?: ApiKeyScope;
  /** Domain names as typed; checked and normalised (DomainError when one is not a domain name). */
  senderDomains?: readonly string[];
}

export async function createApiKey(q: Queryable, accountId: string, label = "", options: KeyOptions = {}): Promise<{ key: ApiKeyInfo; apiKey: string }> {
  const senderDomains = options.senderDomains?.length ? normalizeKeySenderDomains(options.senderDomains) : null;
  const apiKey = generateApiKey();
  const row = await insertApiKeyRow(q, {
    accountId,
    label,
    prefix: apiKey.slice(0, KEY_PREFIX_LENGTH),
    keyHash: hashApiKey(apiKey),
    scope: options.scope ?? "full",
    senderDomains,
  });
  return { key: toInfo(row), apiKey };
}

export async function listApiKeys(q: Queryable, accountId: string): Promise<ApiKeyInfo[]> {
  return (await selectApiKeyRows(q, accountId)).map(toInfo);
}

/** Revokes a key; true when a key was revoked now. Optionally scoped to an account. */
export async function revokeApiKey(q: Queryable, keyId: string, accountId?: string): Promise<boolean> {
  // A serving process forgets its cached answers itself (ctx.apiKeyAuth); others within AUTH_CACHE_MS.
  return revokeApiKeyRow(q, keyId, accountId);
}

const INFO_MEMBERS = ["id", "accountId", "label", "prefix", "createdAt", "lastUsedAt", "revokedAt", "scope", "senderDomains"] as const;

function toInfo(r: ApiKeyRow): ApiKeyInfo {
  return pick(r, INFO_MEMBERS);
}

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  plan: string;
  limits: Limits;
  trackOpens: boolean;
  trackClicks: boolean;
  scope: ApiKeyScope;
  senderDomains: string[] | null;
  /** The account's own daily ceiling shared by all its keys (docs/adr/0132); null or absent: the instance's. */
  accountDailyLimit?: number | null;
  /** Set while the reputation guardrails keep the account from sending (docs/adr/0136): why. */
  sendingPausedReason?: string;
}

export type AuthResult = { ok: true; key: AuthenticatedKey } | { ok: false; code: 1 | 12 | 13 };

// Verified keys are cached briefly: a revocation or suspension takes effect
// within AUTH_CACHE_MS in every process (immediately in the one that made it).
const AUTH_CACHE_MS = 5_000;
const LAST_USED_EVERY_MS = 60_000;

/** One per process (buildAppContext, `ctx.apiKeyAuth`): recent answers, and when each key's last use was written. */
export interface ApiKeyAuthCache {
  results: ExpiringMap<AuthResult>;
  lastUsedWritten: ExpiringMap<true>;
  /**
   * Lookups under way, by key hash: a burst of requests with one key whose
   * answer is not cached waits for one query, not one each (100 at once held
   * every connection of the pool, and another tenant's request behind them).
   */
  lookups: Map<string, Promise<AuthResult>>;
}

export function createApiKeyAuthCache(): ApiKeyAuthCache {
  return { results: new ExpiringMap<AuthResult>(AUTH_CACHE_MS), lastUsedWritten: new ExpiringMap<true>(LAST_USED_EVERY_MS), lookups: new Map() };
}

/**
 * docs/contract.md §3: header → key → account, with codes 1, 13, 12. With a
 * cache (the serving process's), answers are reused for a few seconds and
 * the key's last use is written at most once a minute; without one (the
 * CLI, a test reading what another process changed) the database decides.
 */
export async function authenticateApiKey(q: Queryable, authorization: string | undefined | null, cache?: ApiKeyAuthCache): Promise<AuthResult> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (!m) return { ok: false, code: 1 };
  const hash = hashApiKey(m[1]!);
  const cacheKey = hash.toString("base64");
  const now = Date.now();
  const cached = cache?.results.get(cacheKey, now);
  if (cached) return cached;
  if (!cache) return lookUpKey(q, hash, cacheKey, now);
  const under = cache.lookups.get(cacheKey);
  if (under) return under;
  const lookup = lookUpKey(q, hash, cacheKey, now, cache);
  cache.lookups.set(cacheKey, lookup);
  const done = () => {
    if (cache.lookups.get(cacheKey) === lookup) cache.lookups.delete(cacheKey);
  };
  lookup.then(done, done);
  return lookup;
}

async function lookUpKey(q: Queryable, hash: Buffer, cacheKey: string, now: number, cache?: ApiKeyAuthCache): Promise<AuthResult> {
  const row = await selectKeyWithAccount(q, hash);

  let result: AuthResult;
  if (!row || row.revokedAt) result = { ok: false, code: 13 };
  else if (row.status !== "active") result = { ok: false, code: 12 };
  else
    result = {
      ok: true,
      key: {
        keyId: row.keyId,
        accountId: row.accountId,
        plan: row.plan,
        limits: effectiveLimits(row.plan, row),
        trackOpens: row.trackOpens,
        trackClicks: row.trackClicks,
        scope: row.scope,
        senderDomains: row.senderDomains,
        accountDailyLimit: row.accountLimitPerDay,
        ...(row.sendingPausedAt && { sendingPausedReason: row.sendingPausedReason ?? "the reputation guardrails paused it" }),
      },
    };
  cache?.results.set(cacheKey, result, now);

  if (result.ok && !cache?.lastUsedWritten.get(result.key.keyId, now)) {
    cache?.lastUsedWritten.set(result.key.keyId, true, now);
    void writeKeyLastUsed(q, result.key.keyId, new Date(now)).catch(() => {});
  }
  return result;
}
