import type { Delivery } from "../domain/webhooks.js"
import type { ChatbotsRepo, DeliveriesRepo, EventsRepo } from "../ports/webhooks.js"
import type { Runner } from "./db.js"
import { outboxOps } from "./outbox.js"
import { chatbotRow, OUTBOX_DUE, toChatbot, toEvent } from "../sql/records.js"
import { placeholders, setClause } from "../sql/rows.js"

export const makeChatbotsRepo = (run: Runner): ChatbotsRepo => ({
  byId: (id) => run.read((_, s) => {
    const row = s(`SELECT * FROM chatbots WHERE id = ?`).get(id)
    return row === undefined ? undefined : toChatbot(row)
  }),
  ofGroup: (groupId) => run.read((_, s) => s(`SELECT * FROM chatbots WHERE group_id = ? ORDER BY id`).all(groupId).map(toChatbot)),
  subscribed: (groupId, kind) =>
    run.read((_, s) =>
      s(`SELECT * FROM chatbots WHERE group_id = ? AND EXISTS (SELECT 1 FROM json_each(event_kinds) WHERE value = ?) ORDER BY id`)
        .all(groupId, kind).map(toChatbot)),
  insert: (c) =>
    run.write((_, s) => {
      const row = chatbotRow({ ...c, updated_at: c.created_at })
      const cols = Object.keys(row)
      const info = s(`INSERT INTO chatbots (${cols.join(", ")}) VALUES (${cols.map((k) => "@" + k).join(", ")})`).run(row)
      return toChatbot(s(`SELECT * FROM chatbots WHERE id = ?`).get(info.lastInsertRowid))
    }),
  update: (id, patch) =>
    run.write((db) => {
      const row = chatbotRow(patch)
      db.prepare(`UPDATE chatbots SET ${setClause(row)} WHERE id = @id`).run({ ...row, id })
    }),
  delete: (id) => run.write((_, s) => void s(`DELETE FROM chatbots WHERE id = ?`).run(id))
})

export const makeEventsRepo = (run: Runner): EventsRepo => ({
  insert: (e) =>
    run.write((_, s) => {
      const info = s(
        `INSERT INTO webhook_events (kind, group_id, actor_id, eventable_type, eventable_id, message, created_at)
         VALUES (@kind, @group_id, @actor_id, @eventable_type, @eventable_id, @message, @created_at)`
      ).run({ ...e, message: JSON.stringify(e.message) })
      return { ...e, id: Number(info.lastInsertRowid) }
    }),
  byIds: (ids) =>
    ids.length === 0
      ? run.read(() => [])
      : run.read((_, s) => s(`SELECT * FROM webhook_events WHERE id IN (${placeholders(ids.length)})`).all(...ids).map(toEvent))
})

export const makeDeliveriesRepo = (run: Runner): DeliveriesRepo => ({
  insert: (d) =>
    run.write((_, s) =>
      void s(`INSERT INTO webhook_deliveries (event_id, chatbot_id, next_attempt_at, created_at)
              VALUES (@event_id, @chatbot_id, @next_attempt_at, @created_at)`).run(d)),
  claimDue: (now, until, limit) =>
    run.write((_, s) => {
      const rows = s(`SELECT * FROM webhook_deliveries WHERE ${OUTBOX_DUE} ORDER BY next_attempt_at, id LIMIT @limit`)
        .all({ now, limit }) as Array<Delivery>
      const claim = s(`UPDATE webhook_deliveries SET claimed_until = ? WHERE id = ?`)
      for (const r of rows) claim.run(until, r.id)
      return rows.map((r) => ({ ...r, claimed_until: until }))
    }),
  record: (id, patch) =>
    run.write((_, s) =>
      void s(`UPDATE webhook_deliveries SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at,
              last_status = @last_status, last_error = @last_error, delivered_at = @delivered_at, claimed_until = NULL
              WHERE id = @id`).run({ ...patch, id })),
  byId: (id) => run.read((_, s) => s(`SELECT * FROM webhook_deliveries WHERE id = ?`).get(id) as Delivery | undefined),
  list: (filter, page) =>
    run.read((_, s) =>
      s(`SELECT d.*, e.group_id AS group_id, e.kind AS event_kind FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
         WHERE (@group_id IS NULL OR e.group_id = @group_id) AND (@status IS NULL OR d.status = @status)
         ORDER BY d.id DESC LIMIT @limit OFFSET @offset`)
        .all({ group_id: filter.group_id ?? null, status: filter.status ?? null, limit: page.limit, offset: page.offset }) as never),
  ...outboxOps(run, "webhook_deliveries")
})
