/**
 * Threads: a topic per discussion (later also per standalone poll) holding the thread state and its
 * ordered items; discussions, comments, reactions and the thread's readers (guests).
 * Every reference to a user either cascades or is set null, so deleting a user (b3) never fails.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m002_discussions = String.raw`
CREATE TABLE topics (
  id INTEGER PRIMARY KEY,
  group_id INTEGER REFERENCES groups(id) ON DELETE CASCADE,
  topicable_type TEXT NOT NULL CHECK (topicable_type IN ('Discussion', 'Poll')),
  topicable_id INTEGER,
  private INTEGER NOT NULL DEFAULT 1,
  tags TEXT NOT NULL DEFAULT '[]',
  items_count INTEGER NOT NULL DEFAULT 0,
  max_depth INTEGER NOT NULL DEFAULT 3,
  last_activity_at TEXT NOT NULL,
  closed_at TEXT,
  closer_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  discarded_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX topics_group_activity ON topics(group_id, last_activity_at DESC, id DESC);
CREATE INDEX topics_activity ON topics(last_activity_at DESC, id DESC);

CREATE TABLE discussions (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  topic_id INTEGER NOT NULL UNIQUE REFERENCES topics(id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  description_format TEXT NOT NULL DEFAULT 'md' CHECK (description_format IN ('md', 'html')),
  discarded_at TEXT,
  discarded_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX discussions_author ON discussions(author_id);
-- a deleted discussion takes its thread with it
CREATE TRIGGER discussions_delete_topic AFTER DELETE ON discussions
BEGIN
  DELETE FROM topics WHERE id = OLD.topic_id AND topicable_type = 'Discussion';
END;

CREATE TABLE comments (
  id INTEGER PRIMARY KEY,
  discussion_id INTEGER NOT NULL REFERENCES discussions(id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES comments(id) ON DELETE SET NULL,
  author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  body TEXT NOT NULL,
  body_format TEXT NOT NULL DEFAULT 'md' CHECK (body_format IN ('md', 'html')),
  edited_at TEXT,
  discarded_at TEXT,
  discarded_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX comments_discussion ON comments(discussion_id, id);
CREATE INDEX comments_author ON comments(author_id);

-- the ordered event stream of a thread; itemable is polymorphic (Discussion, Comment, later Poll, Stance, Outcome)
CREATE TABLE topic_items (
  id INTEGER PRIMARY KEY,
  topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  sequence_id INTEGER NOT NULL,
  parent_id INTEGER REFERENCES topic_items(id) ON DELETE SET NULL,
  depth INTEGER NOT NULL DEFAULT 0,
  position INTEGER NOT NULL DEFAULT 0,
  position_key TEXT,
  child_count INTEGER NOT NULL DEFAULT 0,
  itemable_type TEXT NOT NULL,
  itemable_id INTEGER NOT NULL,
  actor_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  UNIQUE (topic_id, sequence_id)
);
CREATE INDEX topic_items_itemable ON topic_items(itemable_type, itemable_id);
CREATE TRIGGER comments_delete_items AFTER DELETE ON comments
BEGIN
  DELETE FROM topic_items WHERE itemable_type = 'Comment' AND itemable_id = OLD.id;
  DELETE FROM reactions WHERE reactable_type = 'Comment' AND reactable_id = OLD.id;
END;

CREATE TABLE reactions (
  id INTEGER PRIMARY KEY,
  topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
  reactable_type TEXT NOT NULL CHECK (reactable_type IN ('Discussion', 'Comment', 'Poll', 'Stance', 'Outcome')),
  reactable_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  reaction TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (reactable_type, reactable_id, user_id, reaction)
);
CREATE INDEX reactions_topic ON reactions(topic_id);

-- who was brought into a thread: notified members (guest = 0) and invited guests (guest = 1)
CREATE TABLE topic_readers (
  id INTEGER PRIMARY KEY,
  topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  inviter_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  guest INTEGER NOT NULL DEFAULT 0,
  revoked_at TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (topic_id, user_id)
);
CREATE INDEX topic_readers_user ON topic_readers(user_id, guest);
`
