-- Wake delivery workers at once: every statement that inserts message
-- recipients (the acceptance transaction of POST /email, which also enqueues
-- the `deliver` jobs) notifies `mailroom_deliver` at commit. Workers LISTEN
-- and fetch immediately instead of waiting for their next poll.
CREATE OR REPLACE FUNCTION mailroom_notify_deliver() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('mailroom_deliver', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER message_recipients_notify_deliver
  AFTER INSERT ON message_recipients
  FOR EACH STATEMENT EXECUTE FUNCTION mailroom_notify_deliver();

-- The sandbox inbox lists newest first and searches by address and subject.
CREATE INDEX sandbox_messages_rcpt ON sandbox_messages USING gin (rcpt_to);
