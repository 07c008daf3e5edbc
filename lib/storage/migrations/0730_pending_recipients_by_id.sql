-- Delivery CPU per message (docs/adr/0320): the pending-recipient index keyed by id, not by status.
-- Keyed by status, the planner took it for "these recipient ids, if still
-- pending" (the delivery loader and the round writer) whenever its
-- statistics showed few pending rows, and then read every pending row per
-- statement: with 20,000 recipients queued under load, 20 ms per loader
-- batch instead of 0.4 ms. Keyed by id, the same choice is a lookup of the
-- ids asked for, and the stranded-recipient sweep (status pending, id > $n
-- ORDER BY id) reads it in order.
DROP INDEX IF EXISTS message_recipients_pending;
CREATE INDEX message_recipients_pending ON message_recipients (id) WHERE status IN ('queued', 'deferred');
