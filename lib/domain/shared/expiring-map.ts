/**
 * A small per-process memo whose entries expire: the caches of a process
 * live on its AppContext (docs/ARCHITECTURE.md), never in module state, so a
 * test, a worker or a Next bundle sees exactly the caches of its context.
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    /** Past this many entries the map starts again empty (a bound, not an eviction policy). */
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, now = Date.now()): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires > now) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, now = Date.now()): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
