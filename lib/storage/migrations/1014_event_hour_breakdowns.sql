-- Hourly event counts per tag, recipient domain and sender domain, for the overview's
-- breakdowns and GET /stats?By= (docs/adr/0517), beside event_hour_counts (0100) and filled
-- in the same transaction up to the same rolled_until. `value` '' holds the rest of an
-- hour's values past the largest 50 of a pass (shown as "Other"): a tag is never empty
-- (docs/contract.md §5), and events without a value (an untagged message) have no row.
CREATE TABLE event_hour_breakdowns (
  account_id uuid NOT NULL,
  dimension text NOT NULL CHECK (dimension IN ('tag', 'recipientDomain', 'senderDomain')),
  hour bigint NOT NULL,
  value text NOT NULL,
  type text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (account_id, dimension, hour, value, type)
);

-- A late event undoes the breakdowns with the counts, from its hour on (0102's function, one DELETE more).
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
    DELETE FROM event_hour_breakdowns WHERE account_id = late.account_id AND hour >= late.hour;
  END LOOP;
  RETURN NULL;
END $$;

-- The upgrade: the last 30 days are summarised again, into both tables, by the next roll-up
-- of each account (an account's summaries from that hour on are dropped and its point set
-- back, as a late event does). Older hours keep their counts and have no breakdowns.
WITH since AS (
  SELECT (extract(epoch FROM now())::bigint - 30 * 86400) - (extract(epoch FROM now())::bigint - 30 * 86400) % 3600 AS hour
), moved AS (
  UPDATE event_rollup_state s SET rolled_until = since.hour FROM since WHERE s.rolled_until > since.hour RETURNING s.account_id
)
DELETE FROM event_hour_counts c USING since WHERE c.hour >= since.hour AND c.account_id IN (SELECT account_id FROM moved);
