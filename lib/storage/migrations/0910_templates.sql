-- Templates with versions (docs/contract.md §14, docs/adr/0120-templates-with-immutable-versions.md).
-- A template is a name in an account; its content lives in versions that are
-- only ever inserted (PUT makes version n + 1), so a message that names a
-- version can always be traced to the text it was rendered from. DELETE
-- archives: the rows stay, the API answers 404 and sends refuse it (code 15).
CREATE TABLE templates (
  id bigserial PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name text NOT NULL,
  archived_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX templates_account_live ON templates (account_id, id) WHERE archived_at IS NULL;

CREATE TABLE template_versions (
  template_id bigint NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version >= 1),
  subject text NOT NULL,
  html text,
  plain text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (template_id, version),
  CHECK (html IS NOT NULL OR plain IS NOT NULL)
);

-- Which template (and version) a message was rendered from; NULL for every other message.
-- No foreign key: a message outlives nothing it names, and templates are never deleted, only archived.
ALTER TABLE messages ADD COLUMN template_id bigint, ADD COLUMN template_version integer;
