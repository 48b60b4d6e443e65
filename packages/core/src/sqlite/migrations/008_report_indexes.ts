/**
 * The participation report counts every person's latest, un-revoked ballots in a window: this partial index
 * covers that count (poll, creation time, voter, cast), so the 125,000 ballots of bench/reports-search.js are
 * read from the index alone (measured 68 → 40 ms for the ballot count).
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m008_report_indexes = String.raw`
CREATE INDEX stances_report ON stances(poll_id, created_at, participant_id, cast_at) WHERE latest = 1 AND revoked_at IS NULL;
`
