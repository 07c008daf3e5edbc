import type { DiskMonitor } from "../../storage/disk-space";
import type { BacklogMonitor } from "./delivery-backlog";
import { singleAcceptor, type Acceptor, type UnitAcceptor } from "./send-email";

/**
 * The refusals of POST /email, POST /email/batch and SMTP submission that
 * come before any transaction (docs/contract.md §18): below
 * MAILROOM_DISK_MIN_FREE nothing new is accepted (docs/adr/0007), nor past
 * MAILROOM_MAX_BACKLOG waiting messages (docs/adr/0322), scheduled or not: a
 * SendAt a second ahead would pass otherwise, and accepting costs the cores
 * delivery lacks (docs/adr/0129). The disk is asked first; each throws its
 * error (DiskSpaceLowError, BacklogFullError), synchronously, which the
 * callers answer (507/429, 452/451).
 */
export interface AcceptanceMonitors {
  disk: Pick<DiskMonitor, "assertAccepting">;
  backlog: Pick<BacklogMonitor, "assertAccepting">;
}

/** The process's acceptors (one group commit, `unit`) behind the refusals: a single message and a batch. */
export function refusingAcceptors(monitors: AcceptanceMonitors, unit: UnitAcceptor): { accept: Acceptor; acceptBatch: UnitAcceptor } {
  const single = singleAcceptor(unit);
  const assertAccepting = () => {
    monitors.disk.assertAccepting();
    monitors.backlog.assertAccepting();
  };
  return {
    accept: (acceptance) => {
      assertAccepting();
      return single(acceptance);
    },
    acceptBatch: (batch) => {
      assertAccepting();
      return unit(batch);
    },
  };
}
