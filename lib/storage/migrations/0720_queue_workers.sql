-- Job leases (lib/queue/job-lease.ts, docs/adr/0021).
-- One row per live worker process; it holds a session advisory lock on
-- (class 0x4d5257, id) and beats every 5 s. A row whose lock is free or whose
-- beat is 30 s old is deleted by any live process, which returns the jobs
-- leased to it (pgboss.job.output->'lease') to the queue.
CREATE TABLE queue_workers (
  id serial PRIMARY KEY,
  pid integer NOT NULL,
  host text NOT NULL,
  role text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);

-- Each reclaim: how many jobs of a queue went back from dead workers (each may
-- run twice: at-least-once). Summed by the metric mailroom_queue_jobs_reclaimed_total.
CREATE TABLE queue_reclaims (
  id bigserial PRIMARY KEY,
  queue text NOT NULL,
  jobs integer NOT NULL,
  reclaimed_at timestamptz NOT NULL DEFAULT now()
);
