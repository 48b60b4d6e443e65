/**
 * Delegated voting (decisions §15): a group lets its members delegate (`members_can_delegate`, off by default) to
 * at most `delegation_limit` delegators each; a poll may refuse it (`allow_delegated_votes`). Each grant is a row
 * kept when revoked (who revoked, when): the history shown to administrators. A ballot a delegate's vote cast for
 * someone names the delegate (`delegated_by`); it stays, replaced, when its voter votes themselves.
 *
 * And a poll's "Reason" setting (Loomio's stance_reason_required): disabled, optional or required; and when its
 * administrators last reminded those who have not voted (**Remind**: once a day at most). A meeting poll's outcome
 * names its event ("Event title", "Location"), and a message of the outbox may carry a calendar invitation (RFC 5545).
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m033_delegation = String.raw`
ALTER TABLE groups ADD COLUMN members_can_delegate INTEGER NOT NULL DEFAULT 0;
ALTER TABLE groups ADD COLUMN delegation_limit INTEGER NOT NULL DEFAULT 5;
ALTER TABLE polls ADD COLUMN allow_delegated_votes INTEGER NOT NULL DEFAULT 1;
ALTER TABLE polls ADD COLUMN stance_reason_required TEXT NOT NULL DEFAULT 'optional';
ALTER TABLE polls ADD COLUMN reminded_at TEXT;
ALTER TABLE polls ADD COLUMN poll_template_key TEXT;
ALTER TABLE polls ADD COLUMN poll_template_id INTEGER;
ALTER TABLE outcomes ADD COLUMN event_summary TEXT;
ALTER TABLE outcomes ADD COLUMN event_location TEXT;
ALTER TABLE mail_outbox ADD COLUMN calendar TEXT;
ALTER TABLE stances ADD COLUMN delegated_by INTEGER REFERENCES users(id) ON DELETE SET NULL;
CREATE INDEX stances_delegated ON stances(poll_id, delegated_by) WHERE delegated_by IS NOT NULL AND latest = 1 AND revoked_at IS NULL;
CREATE TABLE delegations (
  id INTEGER PRIMARY KEY,
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  delegator_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  delegate_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  revoker_id INTEGER REFERENCES users(id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX delegations_active ON delegations(group_id, delegator_id) WHERE revoked_at IS NULL;
CREATE INDEX delegations_delegate ON delegations(group_id, delegate_id) WHERE revoked_at IS NULL;
CREATE INDEX delegations_group ON delegations(group_id, created_at);
`
