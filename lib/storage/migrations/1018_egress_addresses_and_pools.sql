-- Egress addresses, their pools and their warm-up counts (docs/egress.md,
-- docs/adr/0327). An operator declares the source addresses direct-MX
-- delivery binds its connections to (each with the EHLO name it announces,
-- which should be its PTR name), groups them in pools and assigns a pool to
-- an account; an account without an assignment sends from the `default` pool.
--
-- egress_pools: a pool's name (lowercase letters, digits, '-', '_').
-- egress_addresses: one source address (IPv4 or IPv6, as text), its EHLO name,
--   its pool; `warmup_from` is day 1 of its warm-up schedule (`--warm` sets it
--   far enough back for the schedule's last step).
-- egress_assignments: an account's pool (no row: `default`).
-- egress_usage: copies tried from an address to a destination provider
--   (lib/delivery/destinations/destination.ts: `gmail`, or an MX host set) per
--   UTC hour; a day's count is its hours' sum. Written by every delivering
--   process's counter (lib/delivery/egress/usage.ts) as additive upserts; rows
--   older than two days are deleted by the same writers.
CREATE TABLE egress_pools (
  name text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  created_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO egress_pools (name) VALUES ('default');

CREATE TABLE egress_addresses (
  address text PRIMARY KEY CHECK (length(address) BETWEEN 2 AND 45),
  ehlo_name text NOT NULL CHECK (length(ehlo_name) BETWEEN 1 AND 253),
  pool text NOT NULL REFERENCES egress_pools (name),
  warmup_from timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE egress_assignments (
  account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  pool text NOT NULL REFERENCES egress_pools (name),
  assigned_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE egress_usage (
  address text NOT NULL,
  provider text NOT NULL CHECK (length(provider) BETWEEN 1 AND 1000),
  hour timestamptz NOT NULL,
  copies integer NOT NULL CHECK (copies >= 0),
  PRIMARY KEY (address, provider, hour)
);

CREATE INDEX egress_usage_by_hour ON egress_usage (hour);
