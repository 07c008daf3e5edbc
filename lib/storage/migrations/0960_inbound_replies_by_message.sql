-- The replies to an outbound message, for its timeline in the dashboard
-- (docs/contract.md §13): received messages by the MessageID they answer.
CREATE INDEX inbound_messages_replied_to ON inbound_messages (account_id, replied_to_message_id, received_at) WHERE replied_to_message_id IS NOT NULL;
