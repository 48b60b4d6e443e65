import type { MailMessage } from "../domain/records.js"
import type { MailRepo } from "../ports/store.js"
import type { Runner } from "./db.js"

export const makeMailRepo = (run: Runner): MailRepo => ({
  enqueue: (m) =>
    run.write((_, s) => {
      const info = s(
        `INSERT INTO mail_outbox (kind, recipient_user_id, recipient_email, subject, body, group_id, actor_id, created_at)
         VALUES (@kind, @recipient_user_id, @recipient_email, @subject, @body, @group_id, @actor_id, @created_at)`
      ).run(m)
      return { ...m, id: Number(info.lastInsertRowid), sent_at: null }
    }),
  list: (page) =>
    run.read((_, s) => s(`SELECT * FROM mail_outbox ORDER BY id LIMIT ? OFFSET ?`).all(page.limit, page.offset) as Array<MailMessage>)
})
