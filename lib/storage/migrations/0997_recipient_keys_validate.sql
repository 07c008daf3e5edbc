-- The tracking rows' foreign keys to the partitioned recipients (0996),
-- validated in their own transaction: a scan of each under SHARE UPDATE
-- EXCLUSIVE, which lets delivery and tracking insert on (docs/adr/0043).
-- Validated, they are adopted without a scan when the tables become
-- partitions of their own partitioned parents (0998).
ALTER TABLE delivery_attempts VALIDATE CONSTRAINT delivery_attempts_recipient_id_fkey;
ALTER TABLE engagement_windows VALIDATE CONSTRAINT engagement_windows_recipient_id_fkey;
