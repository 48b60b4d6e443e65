/**
 * Groups brought in from an export (decisions §7): the import remembers each source group's key, so that
 * importing the same export twice is refused even after the group was renamed or given a new key.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m017_imports = String.raw`
CREATE TABLE imports (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  source_group_key TEXT NOT NULL UNIQUE,
  group_id INTEGER REFERENCES groups(id) ON DELETE SET NULL,
  counts TEXT NOT NULL,
  created_at TEXT NOT NULL
);
`
