/**
 * Measured (bench/): the group counters and the member list scanned every live membership of a group
 * through the (group_id, user_id) index and sorted the page. One covering index over the live rows
 * answers both: counters from the index alone, pages in id order without a sort.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m006_membership_indexes = String.raw`
CREATE INDEX memberships_group_live ON memberships(group_id, id, accepted_at, admin, delegate) WHERE revoked_at IS NULL;
`
