/**
 * A counter that moves whenever a user row changes or goes (a key rotated, a user deactivated, redacted,
 * renamed or deleted): the authentication cache (sqlite/users.ts) trusts what it holds only while the
 * counter stands still, whichever process made the change.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m015_user_epoch = String.raw`
CREATE TABLE cache_epochs (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO cache_epochs (name, value) VALUES ('users', 0);
CREATE TRIGGER users_epoch_on_update AFTER UPDATE ON users BEGIN
  UPDATE cache_epochs SET value = value + 1 WHERE name = 'users';
END;
CREATE TRIGGER users_epoch_on_delete AFTER DELETE ON users BEGIN
  UPDATE cache_epochs SET value = value + 1 WHERE name = 'users';
END;
`
