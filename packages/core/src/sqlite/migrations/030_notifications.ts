/**
 * Notifications in the app (decisions §13): whatever the mail volume sends is kept for the person too (kind, actor,
 * what it is about and where, when), seen or not.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m030_notifications = String.raw`
CREATE TABLE notifications (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  actor_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  path TEXT NOT NULL,
  group_id INTEGER REFERENCES groups(id) ON DELETE CASCADE,
  topic_id INTEGER REFERENCES topics(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  seen_at TEXT
);
CREATE INDEX notifications_user ON notifications(user_id, id);
CREATE INDEX notifications_unseen ON notifications(user_id) WHERE seen_at IS NULL;
CREATE INDEX notifications_group ON notifications(group_id);
CREATE INDEX notifications_topic ON notifications(topic_id);
CREATE INDEX notifications_actor ON notifications(actor_id);
`
