/**
 * People (decisions §5): invitation tokens (a pending group membership, or a guest of a thread or poll),
 * sign-in codes with their one-time links, sessions, and the events rate limits count. Every secret is
 * stored as its SHA-256 only, and made when the message that carries it is sent.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m013_people = String.raw`
CREATE TABLE invitation_tokens (
  id INTEGER PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('group', 'thread', 'poll')),
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  inviter_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  group_id INTEGER REFERENCES groups(id) ON DELETE CASCADE,
  topic_id INTEGER REFERENCES topics(id) ON DELETE CASCADE,
  message TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX invitation_tokens_user ON invitation_tokens(user_id, kind);

CREATE TABLE login_codes (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_salt TEXT NOT NULL,
  code_hash TEXT NOT NULL,
  link_hash TEXT NOT NULL UNIQUE,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX login_codes_user ON login_codes(user_id, created_at);

CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE rate_events (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX rate_events_key ON rate_events(key, at);

-- a message that carries a secret (an invitation link, a sign-in code) names it here; the secret itself is
-- made when the message is sent, so it is never at rest in plain text
ALTER TABLE mail_outbox ADD COLUMN invitation_id INTEGER REFERENCES invitation_tokens(id) ON DELETE SET NULL;
`
