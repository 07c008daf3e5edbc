-- First sign-in password change (docs/adr/0505): a staff user whose password was generated for them (the admin
-- provisioned on first start, `mailroom users add|set-password` without
-- --password) is asked to choose their own at sign-in (docs/adr/0505).
ALTER TABLE staff_users ADD COLUMN must_change_password boolean NOT NULL DEFAULT false;
