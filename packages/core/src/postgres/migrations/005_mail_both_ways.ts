/** Mail both ways, as SQLite's migration 023. Frozen SQL text. */
export const m005_mail_both_ways = String.raw`
CREATE TABLE reply_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE DEFERRABLE,
  topic_id BIGINT NOT NULL REFERENCES topics(id) ON DELETE CASCADE DEFERRABLE,
  comment_id BIGINT REFERENCES comments(id) ON DELETE SET NULL DEFERRABLE,
  created_at TEXT NOT NULL
);
CREATE TABLE inbound_messages (
  message_id TEXT PRIMARY KEY,
  outcome TEXT NOT NULL,
  received_at TEXT NOT NULL
);
ALTER TABLE mail_outbox ADD COLUMN topic_id BIGINT;
ALTER TABLE mail_outbox ADD COLUMN comment_id BIGINT;
CREATE TABLE group_volumes (
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE DEFERRABLE,
  group_id BIGINT NOT NULL REFERENCES groups(id) ON DELETE CASCADE DEFERRABLE,
  volume TEXT NOT NULL CHECK (volume IN ('mute', 'normal', 'loud')),
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, group_id)
);
INSERT INTO group_volumes (user_id, group_id, volume, updated_at) SELECT user_id, group_id, 'mute', created_at FROM group_mutes;
DROP TABLE group_mutes;
CREATE TABLE thread_volumes (
  user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE DEFERRABLE,
  topic_id BIGINT NOT NULL REFERENCES topics(id) ON DELETE CASCADE DEFERRABLE,
  volume TEXT NOT NULL CHECK (volume IN ('mute', 'normal', 'loud')),
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, topic_id)
);
ALTER TABLE users ADD COLUMN catch_up TEXT CHECK (catch_up IN ('daily', 'every_other_day', 'weekly'));
ALTER TABLE users ADD COLUMN catch_up_sent_at TEXT;
`
