/**
 * Mail both ways (decisions §11): the reply addresses of notifications (per person and thread, stored hashed),
 * each inbound message handled once (by its Message-ID), the thread and comment a message is about, volume
 * per group and per thread (a group's unsubscribe becomes its Mute), and the catch-up e-mail's setting.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m023_mail_both_ways = String.raw`
CREATE TABLE reply_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
  comment_id INTEGER REFERENCES comments(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE inbound_messages (
  message_id TEXT PRIMARY KEY,
  outcome TEXT NOT NULL,
  received_at TEXT NOT NULL
);
ALTER TABLE mail_outbox ADD COLUMN topic_id INTEGER;
ALTER TABLE mail_outbox ADD COLUMN comment_id INTEGER;
CREATE TABLE group_volumes (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  volume TEXT NOT NULL CHECK (volume IN ('mute', 'normal', 'loud')),
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, group_id)
);
INSERT INTO group_volumes (user_id, group_id, volume, updated_at) SELECT user_id, group_id, 'mute', created_at FROM group_mutes;
DROP TABLE group_mutes;
CREATE TABLE thread_volumes (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
  volume TEXT NOT NULL CHECK (volume IN ('mute', 'normal', 'loud')),
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, topic_id)
);
ALTER TABLE users ADD COLUMN catch_up TEXT CHECK (catch_up IN ('daily', 'every_other_day', 'weekly'));
ALTER TABLE users ADD COLUMN catch_up_sent_at TEXT;
`
