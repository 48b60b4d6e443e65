import type { MailMessage } from "../domain/records.js"
import type { MailRepo } from "../ports/store.js"
import type { Runner } from "./db.js"

import { outboxOps } from "./outbox.js"
import { OUTBOX_DUE } from "../sql/records.js"

export const makeMailRepo = (run: Runner): MailRepo => ({
  enqueue: (m) =>
    run.write((_, s) => {
      const info = s(
        `INSERT INTO mail_outbox (kind, recipient_user_id, recipient_email, subject, body, path, group_id, actor_id, created_at, next_attempt_at, invitation_id)
         VALUES (@kind, @recipient_user_id, @recipient_email, @subject, @body, @path, @group_id, @actor_id, @created_at, @created_at, @invitation_id)`
      ).run({ invitation_id: null, ...m })
      return s(`SELECT * FROM mail_outbox WHERE id = ?`).get(info.lastInsertRowid) as MailMessage
    }),
  list: (status, page) =>
    run.read((_, s) =>
      (status === undefined
        ? s(`SELECT * FROM mail_outbox ORDER BY id LIMIT ? OFFSET ?`).all(page.limit, page.offset)
        : s(`SELECT * FROM mail_outbox WHERE status = ? ORDER BY id LIMIT ? OFFSET ?`).all(status, page.limit, page.offset)) as Array<MailMessage>),
  byId: (id) => run.read((_, s) => s(`SELECT * FROM mail_outbox WHERE id = ?`).get(id) as MailMessage | undefined),
  claimDue: (now, until, limit) =>
    run.write((_, s) => {
      const rows = s(`SELECT * FROM mail_outbox WHERE ${OUTBOX_DUE} ORDER BY next_attempt_at, id LIMIT @limit`).all({ now, limit }) as Array<MailMessage>
      const claim = s(`UPDATE mail_outbox SET claimed_until = ? WHERE id = ?`)
      for (const r of rows) claim.run(until, r.id)
      return rows
    }),
  record: (id, patch) =>
    run.write((_, s) =>
      void s(`UPDATE mail_outbox SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at, last_error = @last_error,
              server_reply = @server_reply, sent_at = @sent_at, claimed_until = NULL WHERE id = @id`).run({ ...patch, id })),
  ...outboxOps(run, "mail_outbox")
})
