-- A staff user's session version (docs/adr/0507-session-version.md): carried
-- in every dashboard session (JWT) and compared with this column on each
-- request; a password change or reset, a role change, a revoked membership,
-- the owner flag and "sign out everywhere" increment it, which ends the
-- user's existing sessions.
ALTER TABLE staff_users ADD COLUMN session_version integer NOT NULL DEFAULT 0;
