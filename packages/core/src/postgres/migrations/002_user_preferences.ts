/** A person's time zone and language (decisions §9), as SQLite's migration 020. Frozen SQL text. */
export const m002_user_preferences = String.raw`
ALTER TABLE users ADD COLUMN time_zone TEXT;
ALTER TABLE users ADD COLUMN locale TEXT;
`
