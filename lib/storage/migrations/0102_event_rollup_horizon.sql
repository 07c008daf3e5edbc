-- Summaries now reach up to five minutes ago, to the minute (lib/domain/events/event-counts.ts,
-- ROLLUP_HORIZON_SECONDS), so that an account sending hundreds of messages a
-- second does not have TotalRecords count its last two hours row by row. An
-- event older than the horizon when it is inserted is late: it undoes the
-- summaries from its hour on. clock_timestamp(), not now(): the horizon is
-- measured at the insert, whatever the age of its transaction.
CREATE OR REPLACE FUNCTION events_invalidate_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  late record;
BEGIN
  FOR late IN
    SELECT account_id, min(logged_at - logged_at % 3600) AS hour
    FROM new_events
    WHERE logged_at < extract(epoch FROM clock_timestamp())::bigint - 300
    GROUP BY account_id
  LOOP
    -- Locks the state row even when nothing changes, so that a concurrent
    -- roll-up (which locks it first) either sees this event or is undone.
    INSERT INTO event_rollup_state (account_id, rolled_until) VALUES (late.account_id, 0)
    ON CONFLICT (account_id) DO UPDATE SET rolled_until = least(event_rollup_state.rolled_until, late.hour);
    DELETE FROM event_hour_counts WHERE account_id = late.account_id AND hour >= late.hour;
  END LOOP;
  RETURN NULL;
END $$;
