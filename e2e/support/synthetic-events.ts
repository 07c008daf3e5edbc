import type pg from "pg";

/**
 * Bulk synthetic traffic for benchmarks and for tests that need events
 * spread over days (real sends all land in the same second). One SQL
 * statement per table with generate_series, deterministic for a seed:
 *   - `messages` messages, each to ann+N@ and bob+N@ (two recipients);
 *   - per recipient `accepted`, then `delivered` (90 %), `failed` (5 %) or
 *     `rejected` (5 %), one second later;
 *   - `engagement` events on those messages: opened 74 %, clicked 20 %,
 *     unsubscribed 4 %, complained 2 %, minutes later.
 * Times spread pseudo-randomly over [start, end]. Total events:
 * messages × 4 + engagement.
 */
export async function insertSyntheticEvents(
  client: pg.Pool | pg.Client | pg.PoolClient,
  options: { accountId: string; messages: number; engagement: number; start: number; end: number; seed?: string },
): Promise<number> {
  const seed = options.seed ?? "bench";
  const span = Math.max(1, options.end - options.start - 7200);
  // The day partitions of the range (docs/adr/0030), as a live installation has them: not the default partition.
  await client.query("SELECT event_partitions_ensure($1::bigint, $2::bigint + 86400)", [options.start, options.end]);
  await client.query(
    `INSERT INTO messages (id, account_id, from_email, from_domain, subject, headers, content, size, transport, created_at)
     SELECT md5($2 || g)::uuid, $1, 'hello@example.com', 'example.com', 'Bulk message ' || g,
            jsonb_build_object('MessageId', md5($2 || g)::uuid::text,
                               'From', jsonb_build_array(jsonb_build_array('Demo', 'hello@example.com')),
                               'ReplyTo', '[]'::jsonb,
                               'To', jsonb_build_array(jsonb_build_array('Ann', 'ann+' || g || '@example.org'),
                                                       jsonb_build_array('Bob', 'bob+' || g || '@example.org')),
                               'Cc', '[]'::jsonb, 'Bcc', '[]'::jsonb,
                               'Subject', 'Bulk message ' || g),
            '{}'::jsonb, 1500, 'api', to_timestamp($3 + (g::bigint * 2654435761) % $4)
     FROM generate_series(1, $5::int) g`,
    [options.accountId, seed, options.start, span, options.messages],
  );
  await client.query(
    `INSERT INTO events (account_id, message_id, type, logged_at, log_level, recipient, reason)
     SELECT $1, md5($2 || g)::uuid, t.type, $3 + (g::bigint * 2654435761) % $4 + t.delay,
            CASE t.type WHEN 'failed' THEN 'error' WHEN 'rejected' THEN 'warn' ELSE 'info' END,
            CASE WHEN k % 2 = 0 THEN 'ann+' ELSE 'bob+' END || g || '@example.org',
            CASE t.type WHEN 'failed' THEN '550 5.1.1 user unknown' WHEN 'rejected' THEN '550 5.7.1 blocked by policy'
                        WHEN 'delivered' THEN '250 2.0.0 Ok' ELSE '' END
     FROM generate_series(1, $5::int) g
     CROSS JOIN generate_series(0, 3) k
     CROSS JOIN LATERAL (
       SELECT CASE WHEN k < 2 THEN 'accepted'
                   WHEN (g * 2 + k) % 20 = 0 THEN 'failed'
                   WHEN (g * 2 + k) % 20 = 1 THEN 'rejected'
                   ELSE 'delivered' END AS type,
              CASE WHEN k < 2 THEN 0 ELSE 1 END AS delay
     ) t
     ORDER BY 4, g, k`,
    [options.accountId, seed, options.start, span, options.messages],
  );
  if (options.engagement > 0) {
    await client.query(
      `INSERT INTO events (account_id, message_id, type, logged_at, log_level, recipient, reason, ip, geo_city, geo_region, geo_country, url)
       SELECT $1, md5($2 || m)::uuid, t.type, $3 + (m::bigint * 2654435761) % $4 + 60 + j % 3600,
              CASE WHEN t.type = 'complained' THEN 'warn' ELSE 'info' END,
              'ann+' || m || '@example.org', 'The recipient ' || t.type || ' the message',
              CASE WHEN t.type = 'complained' THEN NULL ELSE '203.0.113.' || (j % 250) END,
              CASE WHEN t.type = 'complained' THEN NULL ELSE 'Berlin' END,
              CASE WHEN t.type = 'complained' THEN NULL ELSE 'BE' END,
              CASE WHEN t.type = 'complained' THEN NULL ELSE 'DE' END,
              CASE WHEN t.type = 'clicked' THEN 'https://example.net/offer' END
       FROM generate_series(1, $6::int) j
       CROSS JOIN LATERAL (SELECT (j::bigint * 7919) % $5 + 1 AS m) mm
       CROSS JOIN LATERAL (
         SELECT CASE WHEN j % 50 < 37 THEN 'opened' WHEN j % 50 < 47 THEN 'clicked'
                     WHEN j % 50 < 49 THEN 'unsubscribed' ELSE 'complained' END AS type
       ) t
       ORDER BY 4, j`,
      [options.accountId, seed, options.start, span, options.messages, options.engagement],
    );
  }
  return options.messages * 4 + options.engagement;
}
