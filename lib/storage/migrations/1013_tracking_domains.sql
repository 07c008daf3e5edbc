-- A tracking domain per sender domain (docs/adr/0135-tracking-domains.md): a
-- host name CNAME'd to the instance; open and click links of the domain's
-- messages use it once `tracking_verified_at` is set. One sender domain per
-- tracking host in the whole instance: the tracking routes find the domain by
-- the Host header.
ALTER TABLE sender_domains
  ADD COLUMN tracking_domain text,
  ADD COLUMN tracking_verified_at timestamptz;
CREATE UNIQUE INDEX sender_domains_tracking_domain ON sender_domains (tracking_domain) WHERE tracking_domain IS NOT NULL;
