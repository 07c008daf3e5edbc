-- The trackable links of a message's HTML body, in document order, written
-- once by the first delivery job that rewrites them (or the first click on an
-- older message): a click reads link N here instead of parsing the stored body
-- again (lib/domain/tracking/tracked-links.ts, docs/adr/0303). NULL = not listed yet.
ALTER TABLE messages ADD COLUMN tracked_links jsonb;
