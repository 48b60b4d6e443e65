/**
 * A group's own poll templates (decisions §15), as Loomio keeps them: rows of `poll_templates` (a template's process
 * words, its poll's type, details, options, duration and settings; `position`; hidden: `discarded_at`), and on the
 * group which built-ins it hides (`hidden_poll_templates`, their keys) and where it places them
 * (`poll_template_positions`, key → position). `source_key`: the built-in a group's copy was edited from.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m034_poll_templates = String.raw`
ALTER TABLE groups ADD COLUMN hidden_poll_templates TEXT NOT NULL DEFAULT '[]';
ALTER TABLE groups ADD COLUMN poll_template_positions TEXT NOT NULL DEFAULT '{}';
CREATE TABLE poll_templates (
  id INTEGER PRIMARY KEY,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  source_key TEXT,
  poll_type TEXT NOT NULL,
  process_name TEXT NOT NULL,
  process_subtitle TEXT NOT NULL DEFAULT '',
  details TEXT NOT NULL DEFAULT '',
  poll_options TEXT NOT NULL DEFAULT '[]',
  default_duration_in_days INTEGER NOT NULL,
  settings TEXT NOT NULL DEFAULT '{}',
  position INTEGER NOT NULL DEFAULT 0,
  discarded_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX poll_templates_group ON poll_templates(group_id, position);
`
