-- A message's from_domain by id alone, from any day table (docs/adr/0044):
-- the webhook fan-out's fallback for an event whose message is not among the
-- days around now (lib/storage/notification-rows.ts). PL/pgSQL, so that its
-- plan (an index probe per day table) is made and initialised only when it is
-- called, not at every start of the fan-out's statement.
CREATE FUNCTION message_from_domain(message uuid) RETURNS text LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT m.from_domain FROM messages m WHERE m.id = message LIMIT 1);
END $$;
