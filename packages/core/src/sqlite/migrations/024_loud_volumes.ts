/**
 * Who asked to hear everything of a thread or a group (`volume = 'loud'`), found from those few rows: every
 * comment and vote asks (store/people.ts loudListeners), which read every member of the group before.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m024_loud_volumes = String.raw`
CREATE INDEX thread_volumes_loud ON thread_volumes(topic_id, user_id) WHERE volume = 'loud';
CREATE INDEX group_volumes_loud ON group_volumes(group_id, user_id) WHERE volume = 'loud';
`
