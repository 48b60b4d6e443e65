/**
 * Which accounts an invitation made and nobody has used yet (decisions §5, amended): only such a placeholder is
 * signed in by **Accept invitation**. An account is no longer one once it signs in, holds an accepted membership
 * or has an identity. Accounts made before this migration are placeholders when nothing shows anyone used them and
 * an invitation was sent to them; an operator's account without a name that was since invited is counted as one
 * only if it was never used (it could not be told from a placeholder: its owner then signs in by code first).
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m025_placeholders = String.raw`
ALTER TABLE users ADD COLUMN placeholder INTEGER NOT NULL DEFAULT 0;
UPDATE users SET placeholder = 1
 WHERE name IS NULL AND redacted_at IS NULL
   AND EXISTS (SELECT 1 FROM invitation_tokens v WHERE v.user_id = users.id)
   AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = users.id)
   AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.user_id = users.id)
   AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = users.id AND m.accepted_at IS NOT NULL);
`
