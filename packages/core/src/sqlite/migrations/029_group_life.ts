/**
 * A group's life (decisions §12): who can join (Loomio's `membership_granted_upon`: `request` joins at once,
 * `approval` asks, `invitation` only by invitation; groups already listed ask), requests to join, the shareable
 * link (its token is derived from the server's secret and `join_link_epoch`, which **Reset link** raises, so no
 * token is stored), Loomio's three other permission flags, a deleted group's `archived_at` (purged 14 days later), a
 * group's tags with their colours (threads carry their tags' names, as Loomio's) and a thread's edits.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m029_group_life = String.raw`
ALTER TABLE groups ADD COLUMN membership_granted_upon TEXT NOT NULL DEFAULT 'invitation'
  CHECK (membership_granted_upon IN ('request', 'approval', 'invitation'));
UPDATE groups SET membership_granted_upon = 'approval' WHERE is_visible_to_public = 1;
ALTER TABLE groups ADD COLUMN members_can_add_guests INTEGER NOT NULL DEFAULT 1;
ALTER TABLE groups ADD COLUMN members_can_announce INTEGER NOT NULL DEFAULT 1;
ALTER TABLE groups ADD COLUMN members_can_delete_comments INTEGER NOT NULL DEFAULT 1;
ALTER TABLE groups ADD COLUMN join_link_epoch INTEGER NOT NULL DEFAULT 0;
ALTER TABLE groups ADD COLUMN archived_at TEXT;
CREATE INDEX groups_archived ON groups(archived_at) WHERE archived_at IS NOT NULL;

CREATE TABLE membership_requests (
  id INTEGER PRIMARY KEY,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  requestor_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  introduction TEXT NOT NULL,
  response TEXT CHECK (response IN ('approved', 'declined')),
  responder_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  response_message TEXT,
  responded_at TEXT,
  created_at TEXT NOT NULL
);
-- one request waits per person and group
CREATE UNIQUE INDEX membership_requests_waiting ON membership_requests(group_id, requestor_id) WHERE response IS NULL;

CREATE TABLE tags (
  id INTEGER PRIMARY KEY,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  color TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX tags_name ON tags(group_id, lower(name));

-- a thread's edits (Loomio's paper-trail versions): who, when, each field's [before, after]
CREATE TABLE versions (
  id INTEGER PRIMARY KEY,
  item_type TEXT NOT NULL,
  item_id INTEGER NOT NULL,
  whodunnit INTEGER REFERENCES users(id) ON DELETE SET NULL,
  object_changes TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX versions_item ON versions(item_type, item_id);

-- a purge deletes threads by the thousand: each row deleted looks up what refers to it (foreign keys), by index (not
-- a reply's parent: on SQLite those two indexes cost every light read a fifth of its speed, measured by bench/light.js)
CREATE INDEX invitation_tokens_topic ON invitation_tokens(topic_id);
CREATE INDEX invitation_tokens_group ON invitation_tokens(group_id);
CREATE INDEX reply_tokens_topic ON reply_tokens(topic_id);
CREATE INDEX reply_tokens_comment ON reply_tokens(comment_id);
CREATE INDEX webhook_events_group ON webhook_events(group_id);
CREATE INDEX unsubscribe_tokens_group ON unsubscribe_tokens(group_id);

-- a long thread read a page at a time, in the order of its tree (decisions §9 amended: pages of at most 100 items)
CREATE INDEX topic_items_position ON topic_items(topic_id, position_key);
`
