-- Sandbox captures are filed by their envelope sender, the VERP return path
-- `bounces+<recipient id in base 36>-<signature>@…` that delivery writes
-- (lib/tracking/verp.ts), no longer by the Message-ID header that whoever
-- wrote the message chose (docs/adr/0307). The sandbox MX now checks the
-- signature before it accepts a capture; captures stored before this are
-- filed again here by the recipient row their return path names (SQL has no
-- tracking secret to check signatures with: they were accepted from this
-- service's own delivery on loopback). A capture whose return path names no
-- stored recipient keeps no account and no MessageID.
WITH parsed AS (
  SELECT s.id, substring(lower(s.mail_from) FROM '^bounces\+([0-9a-z]{1,12})-[0-9a-f]{16}@') AS b36
  FROM sandbox_messages s
), filed AS (
  SELECT p.id, r.message_id, r.account_id
  FROM parsed p
  LEFT JOIN message_recipients r ON p.b36 IS NOT NULL AND r.id = (
    SELECT sum((strpos('0123456789abcdefghijklmnopqrstuvwxyz', d.c) - 1)::numeric * power(36::numeric, length(p.b36) - d.o))::bigint
    FROM regexp_split_to_table(p.b36, '') WITH ORDINALITY AS d(c, o)
  )
)
UPDATE sandbox_messages s
SET account_id = f.account_id, mailroom_message_id = f.message_id
FROM filed f
WHERE f.id = s.id
  AND (s.account_id IS DISTINCT FROM f.account_id OR s.mailroom_message_id IS DISTINCT FROM f.message_id);
