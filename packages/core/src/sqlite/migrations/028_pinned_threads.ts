/**
 * **Pin thread** (decisions §12): when a thread was pinned (null: not pinned); pinned threads come first in a
 * group's lists.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m028_pinned_threads = String.raw`
ALTER TABLE topics ADD COLUMN pinned_at TEXT;
`
