-- Hourly event counts per account and type, for exact TotalRecords and
-- GET /stats without counting millions of rows (docs/adr/0101).
-- Hours below event_rollup_state.rolled_until are summarised here; newer
-- events are counted from the events table. Rolling up is lazy (after a
-- read notices it is behind) and covers only hours that ended at least two
-- hours ago; an event inserted later into such an hour (a "late" event)
-- moves rolled_until back and drops the summaries from its hour on.

CREATE TABLE event_hour_counts (
  account_id uuid NOT NULL,
  hour bigint NOT NULL,
  type text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (account_id, hour, type)
);

CREATE TABLE event_rollup_state (
  account_id uuid PRIMARY KEY,
  rolled_until bigint NOT NULL
);

CREATE FUNCTION events_invalidate_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  late record;
BEGIN
  FOR late IN
    SELECT account_id, min(logged_at - logged_at % 3600) AS hour
    FROM new_events
    WHERE logged_at < extract(epoch FROM now())::bigint - 7200
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

CREATE TRIGGER events_invalidate_rollup
  AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION events_invalidate_rollup();
