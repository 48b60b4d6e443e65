/**
 * Loomio's `members_can_create_subgroups`, as SQLite's migration 26.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m010_subgroup_starters = String.raw`
ALTER TABLE groups ADD COLUMN members_can_create_subgroups boolean NOT NULL DEFAULT false;
`
