-- Tokens name their user by an identifier that is never reused: a user deleted and added
-- again under the same name is a new user with a new id, so the old user's tokens (whose `sub` is
-- the old id) never act as the new one. Existing users get their id here.
ALTER TABLE app_user ADD COLUMN id text NOT NULL UNIQUE DEFAULT gen_random_uuid()::text;
