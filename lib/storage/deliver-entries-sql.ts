/**
 * SQL over a `pgboss.job` row aliased `j`: its deliver entries as rows, both
 * shapes of the deliver job's schema (lib/jobs/deliver.ts: `messages`, or the
 * whole payload for a job written before packing). A malformed payload
 * yields no row, never an error (the stranded-recipient sweep must not stop
 * on one).
 */
export const DELIVER_ENTRIES_SQL = `jsonb_array_elements(CASE WHEN jsonb_typeof(j.data->'messages') = 'array' THEN j.data->'messages' ELSE jsonb_build_array(j.data) END)`;
