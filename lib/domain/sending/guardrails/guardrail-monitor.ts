/**
 * When the guardrails are evaluated (docs/adr/0136): after a bounce or a
 * complaint is recorded, at most once per account per `debounceMs` in this
 * process. A note inside the interval schedules one evaluation at its end,
 * so the last bounce of a burst is always counted and a burst of thousands
 * costs one evaluation per interval.
 */
export interface GuardrailMonitor {
  /** A bounce or complaint of the account was recorded (committed). */
  note(accountId: string): void;
  /** Waits for the evaluations due and under way (tests, shutdown). */
  settled(): Promise<void>;
  stop(): void;
}

export function createGuardrailMonitor(options: {
  debounceMs: number;
  evaluate: (accountId: string) => Promise<unknown>;
  onError: (err: unknown, accountId: string) => void;
  now?: () => number;
}): GuardrailMonitor {
  const now = options.now ?? Date.now;
  const lastRun = new Map<string, number>();
  const pending = new Map<string, ReturnType<typeof setTimeout>>();
  const running = new Set<Promise<unknown>>();
  let stopped = false;

  const run = (accountId: string) => {
    pending.delete(accountId);
    if (stopped) return;
    lastRun.set(accountId, now());
    const p = options
      .evaluate(accountId)
      .catch((err: unknown) => options.onError(err, accountId))
      .finally(() => running.delete(p));
    running.add(p);
  };

  return {
    note(accountId) {
      if (stopped || pending.has(accountId)) return;
      const wait = Math.max(0, (lastRun.get(accountId) ?? -Infinity) + options.debounceMs - now());
      const timer = setTimeout(() => run(accountId), wait);
      timer.unref?.();
      pending.set(accountId, timer);
      // The map of last runs forgets accounts quiet for longer than the interval.
      if (lastRun.size > 10_000) for (const [id, at] of lastRun) if (now() - at > options.debounceMs) lastRun.delete(id);
    },
    async settled() {
      while (pending.size > 0 || running.size > 0) await new Promise((r) => setTimeout(r, 10));
    },
    stop() {
      stopped = true;
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    },
  };
}
