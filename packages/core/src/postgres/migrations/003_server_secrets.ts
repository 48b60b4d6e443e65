/** Secrets the server keeps for itself (the CSRF tokens' HMAC key), as SQLite's migration 021. Frozen SQL text. */
export const m003_server_secrets = String.raw`
CREATE TABLE server_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`
