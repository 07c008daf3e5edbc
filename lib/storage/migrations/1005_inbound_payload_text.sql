-- The JSON posted for an inbound message, kept as the text that was posted
-- (docs/adr/0046): jsonb parsed it and compressed its binary form, which on a
-- 21 KB payload took three times the work of compressing the text
-- (245 µs against 82 µs a row, measured), and read back with its keys in
-- jsonb's order instead of the posted one. Adding a column without a default
-- is a catalog change on every day table. Rows stored before keep `payload`
-- (jsonb) until their retention ends; readers take `payload_text` first.
ALTER TABLE inbound_messages ADD COLUMN payload_text text;
