-- The messages of a page of events (lib/storage/event-rows.ts, docs/adr/0044),
-- called from the page's own statement: messages are partitioned by day and an
-- event does not carry its message's day. Joined in the page's statement,
-- every day table would be planned into each of its (custom) plans; here the
-- first query looks only in the days around the page's events (two days
-- before the oldest to one after the newest, for clock skew between the app
-- and the database), pruned by its parameters, and the second, run only when
-- the first missed some (an event long after its message, a message gone),
-- looks in every other day. `ids` must be distinct.
CREATE FUNCTION event_page_messages(ids uuid[], oldest bigint, newest bigint)
RETURNS TABLE (id uuid, headers jsonb, size integer, transport text, tags text[])
LANGUAGE plpgsql STABLE AS $$
DECLARE
  near_from timestamptz := to_timestamp(oldest - 2 * 86400);
  near_to timestamptz := to_timestamp(newest + 86400);
  found integer;
BEGIN
  RETURN QUERY SELECT m.id, m.headers, m.size, m.transport, m.tags FROM messages m
                WHERE m.id = ANY (ids) AND m.created_at >= near_from AND m.created_at < near_to;
  GET DIAGNOSTICS found = ROW_COUNT;
  IF found < cardinality(ids) THEN
    RETURN QUERY SELECT m.id, m.headers, m.size, m.transport, m.tags FROM messages m
                  WHERE m.id = ANY (ids) AND (m.created_at < near_from OR m.created_at >= near_to);
  END IF;
END $$;
