-- Holds on delivery destinations (lib/delivery/destinations/holds.ts): while
-- a hold lasts, mail to its destination waits without spending delivery
-- attempts. `destination_key` names a recipient domain, a provider name or
-- `relay` (what lib/delivery/destinations/destination.ts calls a
-- destination's keys); `account_id` null holds every account's mail to it.
-- `until` null: until resumed. `source`: an operator's (CLI, dashboard) or
-- automatic (a suspension pattern in a reply). One hold per key and account:
-- placing another replaces it (an automatic one never replaces an operator's).
CREATE TABLE destination_holds (
  id bigserial PRIMARY KEY,
  destination_key text NOT NULL CHECK (length(destination_key) BETWEEN 1 AND 1000),
  account_id uuid,
  until timestamptz,
  reason text NOT NULL DEFAULT '' CHECK (length(reason) <= 1000),
  source text NOT NULL CHECK (source IN ('operator', 'automatic')),
  placed_by text NOT NULL CHECK (length(placed_by) <= 320),
  placed_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX destination_holds_one_per_key_account
  ON destination_holds (destination_key, (COALESCE(account_id, '00000000-0000-0000-0000-000000000000'::uuid)));
