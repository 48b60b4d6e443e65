/**
 * Secrets the server keeps for itself, the same for every server on the database: the key that binds a page's
 * CSRF token to its session (an HMAC), made on first use.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m021_server_secrets = String.raw`
CREATE TABLE server_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`
