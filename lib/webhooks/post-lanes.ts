/**
 * Slots per destination for the inbound posts of one worker process
 * (docs/adr/0048): at most `perDestination` posts run to one receiver at
 * once. A post that finds its receiver's slots taken waits in line for at
 * most `maxWaitMs`; a fast receiver frees a slot within that, so its posts
 * run one after another, while a receiver that hangs keeps its slots and the
 * posts in its line are given up (the caller hands their jobs back), so that
 * they do not hold the worker's other slots while it hangs. Once a wait for a
 * destination has been given up, the next posts that find its slots taken
 * are given up at once, until one of its posts ends: a receiver that hangs
 * costs the others no waiting at all.
 */
export class PostLanes {
  private readonly lanes = new Map<string, { running: number; waiting: ((release: () => void) => void)[]; stuck: boolean }>();

  constructor(readonly perDestination: number) {}

  /** Resolves with the slot's release once one of `destination`'s slots is free, or with undefined after `maxWaitMs` without one. */
  acquire(destination: string, maxWaitMs: number): Promise<(() => void) | undefined> {
    let lane = this.lanes.get(destination);
    if (!lane) {
      lane = { running: 0, waiting: [], stuck: false };
      this.lanes.set(destination, lane);
    }
    const l = lane;
    const release = () => {
      // One of its posts ended: the receiver answers again (or timed out), a wait may pay off.
      l.stuck = false;
      const next = l.waiting.shift();
      // The slot passes to the next in line, still counted as running.
      if (next) return next(once(release));
      l.running--;
      if (l.running === 0) this.lanes.delete(destination);
    };
    if (l.running < this.perDestination) {
      l.running++;
      return Promise.resolve(once(release));
    }
    if (maxWaitMs <= 0 || l.stuck) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const take = (r: () => void) => {
        clearTimeout(timer);
        resolve(r);
      };
      const timer = setTimeout(() => {
        const at = l.waiting.indexOf(take);
        if (at >= 0) l.waiting.splice(at, 1);
        l.stuck = true;
        resolve(undefined);
      }, maxWaitMs);
      l.waiting.push(take);
    });
  }

  /** Posts running or waiting for `destination`. */
  load(destination: string): number {
    const lane = this.lanes.get(destination);
    return lane ? lane.running + lane.waiting.length : 0;
  }
}

/** A release that frees its slot once, however often it is called. */
function once(release: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
