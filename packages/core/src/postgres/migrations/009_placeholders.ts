/**
 * Which accounts an invitation made and nobody has used yet, as SQLite's migration 25.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m009_placeholders = String.raw`
ALTER TABLE users ADD COLUMN placeholder boolean NOT NULL DEFAULT false;
UPDATE users SET placeholder = true
 WHERE name IS NULL AND redacted_at IS NULL
   AND EXISTS (SELECT 1 FROM invitation_tokens v WHERE v.user_id = users.id)
   AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = users.id)
   AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.user_id = users.id)
   AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = users.id AND m.accepted_at IS NOT NULL);
`
