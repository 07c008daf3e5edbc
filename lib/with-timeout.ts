/**
 * `promise`, or a rejection with "no answer within <ms> ms" once `ms` pass
 * (the work itself goes on; its later outcome is ignored). For a check that
 * must answer even when what it asks never does: a replica's lag probe, a
 * readiness probe.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
