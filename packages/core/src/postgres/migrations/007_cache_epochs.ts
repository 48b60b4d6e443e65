/**
 * The caches' epochs, as SQLite's migrations 015 and 018: a counter per cached table that moves whenever one of
 * its rows changes (users: changed or gone; memberships: any change), in the transaction that changes it, so a
 * server trusts its cached key owners and memberships only while the counter it reads stands still, whichever
 * server made the change. Statement triggers: a bulk write (an import) moves the counter once per statement.
 * A transaction that writes users or memberships holds the counter's row until it commits: such writes take
 * turns (they are rare beside comments and votes, which touch neither).
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m007_cache_epochs = String.raw`
CREATE TABLE cache_epochs (
  name TEXT PRIMARY KEY,
  value BIGINT NOT NULL
);
INSERT INTO cache_epochs (name, value) VALUES ('users', 0), ('memberships', 0);
CREATE FUNCTION convene_move_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE cache_epochs SET value = value + 1 WHERE name = TG_ARGV[0];
  RETURN NULL;
END $$;
CREATE TRIGGER users_epoch AFTER UPDATE OR DELETE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION convene_move_epoch('users');
CREATE TRIGGER memberships_epoch AFTER INSERT OR UPDATE OR DELETE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION convene_move_epoch('memberships');
`
