-- The TLS verdict of each delivery attempt (docs/adr/0326): the policy that
-- applied (none, opportunistic, mta-sts, dane), the negotiated version and
-- cipher, whether the certificate passed the policy's check, and why not.
-- NULL for attempts made before this column, and for copies that never got
-- as far as a session (held, no MX, a policy that listed no host).
ALTER TABLE delivery_attempts ADD COLUMN tls jsonb;
