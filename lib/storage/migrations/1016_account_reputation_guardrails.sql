-- Reputation guardrails (docs/adr/0136, docs/contract.md §17.6): an account
-- whose bounce or complaint rate passes its pause threshold stops sending
-- until an owner resumes it.
--
-- sending_paused_at / sending_paused_reason: set when the guardrail paused the
--   account (NULL: it sends); the API and SMTP submission answer 403 meanwhile.
-- reputation_warned_at / reputation_warning: set when a rate passed its warning
--   threshold (the admins are emailed once per warning), cleared when none does.
-- reputation_resumed_at / reputation_resumed_by: the last resume and who made it
--   (a staff email, or `cli`); the rates' windows start no earlier than it, so
--   the mail that caused a pause does not pause the account again at once.
-- pause_bounce_rate / pause_complaint_rate / guardrail_min_volume: the account's
--   own thresholds (NULL: MAILROOM_PAUSE_BOUNCE_RATE, MAILROOM_PAUSE_COMPLAINT_RATE,
--   MAILROOM_GUARDRAIL_MIN_VOLUME); warnings are at half the pause rates.
ALTER TABLE accounts
  ADD COLUMN sending_paused_at timestamptz,
  ADD COLUMN sending_paused_reason text,
  ADD COLUMN reputation_warned_at timestamptz,
  ADD COLUMN reputation_warning text,
  ADD COLUMN reputation_resumed_at timestamptz,
  ADD COLUMN reputation_resumed_by text,
  ADD COLUMN pause_bounce_rate double precision CHECK (pause_bounce_rate > 0 AND pause_bounce_rate <= 1),
  ADD COLUMN pause_complaint_rate double precision CHECK (pause_complaint_rate > 0 AND pause_complaint_rate <= 1),
  ADD COLUMN guardrail_min_volume integer CHECK (guardrail_min_volume >= 1);
