-- Idempotency-Keys are scoped by the user's never-reused id (the token's `sub`, migration 060), not
-- by the user name: a user deleted and added again under the same name is a new user, who never
-- sees the old user's stored answers. Kept keys move to their user's id; keys of users gone go.
ALTER TABLE idempotency_key RENAME COLUMN "userName" TO "userId";
UPDATE idempotency_key AS k SET "userId" = u.id FROM app_user AS u WHERE u."userName" = k."userId";
DELETE FROM idempotency_key AS k WHERE NOT EXISTS (SELECT 1 FROM app_user AS u WHERE u.id = k."userId");
