/**
 * Memberships an identity provider's groups claim made (decisions §10, OIDC_GROUPS_CLAIM): the only ones a later
 * sign-in may revoke when the claim no longer lists their group. Memberships made otherwise have no row here.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m022_granted_memberships = String.raw`
CREATE TABLE granted_memberships (
  membership_id INTEGER PRIMARY KEY REFERENCES memberships(id) ON DELETE CASCADE,
  provider TEXT NOT NULL
);
`
