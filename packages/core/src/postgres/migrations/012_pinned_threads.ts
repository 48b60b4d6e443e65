/**
 * **Pin thread**, as SQLite's migration 28.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m012_pinned_threads = String.raw`
ALTER TABLE topics ADD COLUMN pinned_at timestamptz;
`
