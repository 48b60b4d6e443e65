/**
 * Notification preferences: a person who unsubscribes from a group's mail gets no more notifications
 * from it (invitations and sign-in codes still arrive). The unsubscribe link's token, made when a
 * notification is sent, is stored as its SHA-256 only.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m014_mutes = String.raw`
CREATE TABLE group_mutes (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, group_id)
);
CREATE TABLE unsubscribe_tokens (
  id INTEGER PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL
);
`
