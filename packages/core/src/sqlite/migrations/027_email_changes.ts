/**
 * A change of a person's e-mail address waiting for its link (decisions §12, "Your account"): the new address is
 * used only once the link sent to it is opened, within 24 hours. The link's token is made when the mail is sent and
 * stored hashed; until then `token_hash` is null.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m027_email_changes = String.raw`
CREATE TABLE email_changes (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  new_email TEXT NOT NULL,
  token_hash TEXT UNIQUE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX email_changes_user ON email_changes(user_id);
`
