-- An account-wide daily sending ceiling that all its keys share, beside the
-- per-key windows of limit_counters (docs/adr/0132-account-wide-sending-ceiling.md,
-- docs/contract.md §6.5). `account_limit_per_day`: NULL = the instance's
-- MAILROOM_ACCOUNT_DAILY_LIMIT, 0 = no ceiling for this account.
ALTER TABLE accounts ADD COLUMN account_limit_per_day integer CHECK (account_limit_per_day >= 0);

-- One row per account and UTC day (Unix seconds of its start), consumed in the
-- acceptance transaction as limit_counters are; purged with them.
CREATE TABLE account_limit_counters (
  account_id uuid NOT NULL,
  window_start bigint NOT NULL,
  used integer NOT NULL,
  PRIMARY KEY (account_id, window_start)
);
