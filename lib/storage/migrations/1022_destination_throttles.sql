-- The back-off's throttles (docs/adr/0324), as each worker process sets them:
-- a destination asked for a lower rate. They live in the process that saw the
-- complaint; this table lets `mailroom queue list` and the Queues page show
-- them. One row per destination key and the recipient domain whose reply
-- complained, replaced on each change of the throttle; `ends_at` is when it
-- ends if no further complaint comes. Rows ended a day are deleted when
-- another is written.
CREATE TABLE destination_throttles (
  key text NOT NULL,
  domain text NOT NULL,
  per_minute integer NOT NULL,
  connections integer NOT NULL,
  reason text NOT NULL,
  ends_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key, domain)
);
CREATE INDEX destination_throttles_end ON destination_throttles (ends_at);
