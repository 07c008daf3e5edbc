/**
 * Group commit: callers hand in one item each and wait for its own result,
 * while the items that arrive during a write are written together by the next
 * one. No timer: an item that finds a free slot is written at once, so an idle
 * service adds no latency, and a busy one writes batches as large as the
 * arrivals during one write (bounded by `maxBatch`). At most `maxInFlight`
 * writes run at a time.
 *
 * `write` answers one result per item, in order. When a batch of several
 * fails with an error that `isolate` says could come from one item's data
 * (a constraint or data exception), each item is written again alone, so one
 * bad item cannot fail its neighbours; any other error (the database gone)
 * fails the whole batch at once.
 */
export interface GroupCommitOptions<I = unknown> {
  maxBatch: number;
  maxInFlight: number;
  isolate?: (err: unknown) => boolean;
  /**
   * How much of `maxBatch` an item takes (default 1): a batch of messages
   * handed in as one item counts its messages. An item heavier than
   * `maxBatch` is written alone, never split.
   */
  weightOf?: (item: I) => number;
}

interface Waiting<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (err: unknown) => void;
}

export function createGroupCommit<I, O>(write: (items: I[]) => Promise<O[]>, options: GroupCommitOptions<I>): (item: I) => Promise<O> {
  const queue: Waiting<I, O>[] = [];
  let inFlight = 0;

  const settle = async (batch: Waiting<I, O>[]) => {
    try {
      const out = await write(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(out[i]!));
    } catch (err) {
      if (batch.length > 1 && options.isolate?.(err)) {
        for (const w of batch) await settle([w]);
        return;
      }
      for (const w of batch) w.reject(err);
    }
  };

  const weightOf = options.weightOf ?? (() => 1);
  /** The next batch: the first waiting item, then as many more as fit in maxBatch. */
  const take = (): Waiting<I, O>[] => {
    let n = 1;
    let weight = weightOf(queue[0]!.item);
    while (n < queue.length && weight + weightOf(queue[n]!.item) <= options.maxBatch) weight += weightOf(queue[n++]!.item);
    return queue.splice(0, n);
  };

  const pump = () => {
    while (inFlight < options.maxInFlight && queue.length > 0) {
      const batch = take();
      inFlight++;
      void settle(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      pump();
    });
}
