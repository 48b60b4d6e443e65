/**
 * Mail delivery state on the outbox: each message is pending until a worker sends it (sent), a failure
 * is retried with backoff (failed) and given up after the last try (dead, with the SMTP error). A claim
 * (`claimed_until`) lets one worker send a message while another skips it; a worker that dies leaves a
 * claim that expires. `path` is what the message concerns (`/d/KEY`), made a link with BASE_URL when it
 * is sent. Messages recorded before there was delivery are pending.
 *
 * Frozen SQL text: a released migration never changes (test: migration checksums).
 */
export const m012_mail_delivery = String.raw`
ALTER TABLE mail_outbox ADD COLUMN status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'dead'));
ALTER TABLE mail_outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE mail_outbox ADD COLUMN next_attempt_at TEXT;
ALTER TABLE mail_outbox ADD COLUMN claimed_until TEXT;
ALTER TABLE mail_outbox ADD COLUMN last_error TEXT;
ALTER TABLE mail_outbox ADD COLUMN server_reply TEXT;
ALTER TABLE mail_outbox ADD COLUMN path TEXT;
UPDATE mail_outbox SET status = 'sent' WHERE sent_at IS NOT NULL;
UPDATE mail_outbox SET next_attempt_at = created_at;
CREATE INDEX mail_outbox_due ON mail_outbox(next_attempt_at) WHERE status IN ('pending', 'failed');
CREATE INDEX mail_outbox_status ON mail_outbox(status, id);
`
