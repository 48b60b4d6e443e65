/**
 * Loomio's `members_can_create_subgroups` (decisions §12, "Subgroups"): off, as Loomio's column, so a group's
 * administrators alone start its subgroups until its settings say members may.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m026_subgroup_starters = String.raw`
ALTER TABLE groups ADD COLUMN members_can_create_subgroups INTEGER NOT NULL DEFAULT 0;
`
