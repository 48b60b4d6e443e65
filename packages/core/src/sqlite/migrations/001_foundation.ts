/** Frozen SQL text: a released migration never changes (test: migration checksums). */
export const m001_foundation = String.raw`
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  name TEXT,
  username TEXT UNIQUE,
  email TEXT UNIQUE,
  email_sha256 TEXT,
  country TEXT,
  is_admin INTEGER NOT NULL DEFAULT 0,
  bot INTEGER NOT NULL DEFAULT 0,
  api_key_hash TEXT NOT NULL UNIQUE,
  deactivated_at TEXT,
  deactivator_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  redacted_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE identities (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  identity_type TEXT NOT NULL,
  uid TEXT NOT NULL,
  email TEXT,
  name TEXT,
  UNIQUE (identity_type, uid)
);
CREATE INDEX identities_user ON identities(user_id);

CREATE TABLE groups (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  handle TEXT UNIQUE,
  name TEXT NOT NULL,
  description TEXT,
  parent_id INTEGER REFERENCES groups(id) ON DELETE CASCADE,
  creator_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  enabled INTEGER NOT NULL DEFAULT 1,
  is_visible_to_public INTEGER NOT NULL DEFAULT 0,
  is_visible_to_parent_members INTEGER NOT NULL DEFAULT 0,
  discussion_privacy_options TEXT NOT NULL DEFAULT 'private_only'
    CHECK (discussion_privacy_options IN ('public_only', 'private_only', 'public_or_private')),
  parent_members_can_see_discussions INTEGER NOT NULL DEFAULT 0,
  members_can_start_discussions INTEGER NOT NULL DEFAULT 1,
  members_can_edit_discussions INTEGER NOT NULL DEFAULT 1,
  members_can_edit_comments INTEGER NOT NULL DEFAULT 1,
  members_can_raise_motions INTEGER NOT NULL DEFAULT 1,
  members_can_vote INTEGER NOT NULL DEFAULT 1,
  members_can_add_members INTEGER NOT NULL DEFAULT 0,
  admins_can_edit_user_content INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX groups_parent ON groups(parent_id);

CREATE TABLE memberships (
  id INTEGER PRIMARY KEY,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  inviter_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  admin INTEGER NOT NULL DEFAULT 0,
  delegate INTEGER NOT NULL DEFAULT 0,
  title TEXT,
  accepted_at TEXT,
  revoked_at TEXT,
  revoker_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
-- one live membership per person and group; revoked rows are history
CREATE UNIQUE INDEX memberships_live ON memberships(group_id, user_id) WHERE revoked_at IS NULL;
CREATE INDEX memberships_user ON memberships(user_id, revoked_at);

CREATE TABLE mail_outbox (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  recipient_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  recipient_email TEXT NOT NULL,
  subject TEXT NOT NULL,
  body TEXT NOT NULL,
  group_id INTEGER REFERENCES groups(id) ON DELETE SET NULL,
  actor_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  sent_at TEXT
);
`
