import type { Queryable } from "../storage/database";
import { loadMessagesToDeliver, type Loaded, type LoadRequest } from "../storage/delivery-rows";
import { createGroupCommit } from "../storage/group-commit";
import { isRowDataError } from "../storage/sqlstate";

export type { Loaded, LoadRequest, MessageRow, RecipientRow } from "../storage/delivery-rows";

/**
 * The message, its signing key and its pending recipients, for every job
 * that asks in the same moment: the loop starts a whole fetched batch of
 * jobs at once, so one statement loads them all (lib/storage/delivery-rows.ts).
 */
export type MessageLoader = (r: LoadRequest) => Promise<Loaded | undefined>;

/** One per deliver worker (lib/delivery/start.ts): the jobs it serves share its statements. */
export function createMessageLoader(q: Queryable): MessageLoader {
  return createGroupCommit((requests: LoadRequest[]) => loadMessagesToDeliver(q, requests), {
    maxBatch: 64,
    maxInFlight: 1,
    // A job whose data is malformed (no UUID) fails alone, not the jobs loaded with it.
    isolate: isRowDataError,
  });
}
