/**
 * Who asked to hear everything of a thread or a group, found from those few rows, as SQLite's migration 24.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m008_loud_volumes = String.raw`
CREATE INDEX thread_volumes_loud ON thread_volumes(topic_id, user_id) WHERE volume = 'loud';
CREATE INDEX group_volumes_loud ON group_volumes(group_id, user_id) WHERE volume = 'loud';
`
