/**
 * A bounded cache of DNS answers in front of a resolver (docs/adr/0806).
 * Sender authentication (SPF, DKIM, DMARC) asks the same few questions for
 * every message of a sender: the same TXT records of its domain, its
 * `_dmarc` record. Asked 16 at a time, a resolver may drop some, and each
 * drop costs a retry of a second or more. Here:
 * - one lookup per question in flight, shared by every caller (single flight);
 * - answers, and "no such name" / "no such record", kept for `ttlMs`;
 * - any other failure (timeout, SERVFAIL, refused) is not kept: the next
 *   caller asks again;
 * - at most `maxEntries` questions, the oldest forgotten first.
 */

export type Resolve<T> = (name: string, rrtype: string) => Promise<T>;

export interface DnsAnswerCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/** Error codes of Node's resolver that are answers (the name or the record does not exist), not failures. */
const NEGATIVE_ANSWERS = new Set(["ENOTFOUND", "ENODATA"]);

export function cachedResolver<T>(resolve: Resolve<T>, options: DnsAnswerCacheOptions = {}): Resolve<T> {
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { answer: Promise<T>; expiresAt: number }>();

  return (name, rrtype) => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const cached = entries.get(key);
    if (cached && cached.expiresAt > now()) return cached.answer;
    if (cached) entries.delete(key);
    const answer = resolve(name, rrtype);
    // In flight: shared until it settles; then kept for ttlMs from the answer, or dropped on a failure.
    const entry = { answer, expiresAt: Number.POSITIVE_INFINITY };
    entries.set(key, entry);
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    answer.then(
      () => {
        entry.expiresAt = now() + ttlMs;
      },
      (err: { code?: string }) => {
        if (NEGATIVE_ANSWERS.has(err?.code ?? "")) entry.expiresAt = now() + ttlMs;
        else if (entries.get(key) === entry) entries.delete(key);
      },
    );
    return answer;
  };
}
