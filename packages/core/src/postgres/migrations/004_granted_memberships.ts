/** Memberships an identity provider's groups claim made, as SQLite's migration 022. Frozen SQL text. */
export const m004_granted_memberships = String.raw`
CREATE TABLE granted_memberships (
  membership_id BIGINT PRIMARY KEY REFERENCES memberships(id) ON DELETE CASCADE DEFERRABLE,
  provider TEXT NOT NULL
);
`
