-- GET /api/v1/suppressions pages newest first (docs/contract.md §17.1).
CREATE INDEX suppressions_account_created ON suppressions (account_id, created_at DESC, email);
