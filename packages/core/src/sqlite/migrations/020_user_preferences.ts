/**
 * A person's time zone and language, chosen on /profile (decisions §9): every page shows times in the zone,
 * and pages and mail speak the language. NULL: the server's zone, the browser's language.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m020_user_preferences = String.raw`
ALTER TABLE users ADD COLUMN time_zone TEXT;
ALTER TABLE users ADD COLUMN locale TEXT;
`
