/**
 * The mail outbox and webhooks. Outbox items are claimed for a lease (`claimed_until`) that another worker takes
 * over once it lapses (its holder killed); where the engine can (`Dialect.skipLocked`), servers sharing the
 * database each take different due rows without waiting for each other's claims.
 */
import { Effect } from "effect"
import type { MailMessage } from "../domain/records.js"
import { Chatbot, type Delivery } from "../domain/webhooks.js"
import type { OutboxOps } from "../ports/outbox.js"
import type { MailRepo } from "../ports/store.js"
import type { ChatbotsRepo, DeliveriesRepo, EventsRepo } from "../ports/webhooks.js"
import { OUTBOX_DUE, outboxBacklogSql, toBacklog, toEvent } from "../sql/records.js"
import { asRecord, insertRow, returned, setClause, type SqlClient } from "./client.js"

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

export type OutboxTable = "webhook_deliveries" | "mail_outbox"

/** Claims due rows for `until`, in the order they fell due. */
const claim = <T extends { next_attempt_at: string | null; id: number }>(c: SqlClient, table: OutboxTable, now: string, until: string, limit: number) =>
  Effect.map(
    c.run<T>(`UPDATE ${table} SET claimed_until = @until WHERE id IN (
               SELECT id FROM ${table} WHERE ${OUTBOX_DUE} ORDER BY next_attempt_at, id LIMIT @limit ${c.dialect.skipLocked})
             RETURNING *`, { now, until, limit }),
    (r) => [...r.rows].sort((a, b) => compareText(a.next_attempt_at ?? "", b.next_attempt_at ?? "") || a.id - b.id)
  )

/** The queries the webhook and mail outboxes share (the same columns: status, next_attempt_at, claimed_until). */
const outboxOps = (c: SqlClient, table: OutboxTable): OutboxOps => ({
  retry: (list, now) =>
    Effect.map(
      list === undefined
        ? c.run(`UPDATE ${table} SET status = 'failed', next_attempt_at = ?, claimed_until = NULL WHERE status = 'dead'`, [now])
        : c.run(`UPDATE ${table} SET status = 'failed', next_attempt_at = @now, claimed_until = NULL
                 WHERE status IN ('failed', 'dead') AND ${c.dialect.ids.has("id", "ids")}`, { now, ids: c.dialect.ids.bind(list) }),
      (r) => r.changes
    ),
  nextDueAt: () =>
    Effect.map(
      c.get(`SELECT min(${c.dialect.greater("next_attempt_at", "coalesce(claimed_until, next_attempt_at)")}) AS at FROM ${table} WHERE status IN ('pending', 'failed')`),
      (r) => (r?.at as string | null | undefined) ?? undefined
    ),
  backlog: () => Effect.map(c.get(outboxBacklogSql(table)), (r) => toBacklog({ waiting: Number(r!.waiting), dead: Number(r!.dead), oldest: r!.oldest as string | null }))
})

export const makeMailRepo = (c: SqlClient): MailRepo => ({
  enqueue: (m) =>
    Effect.map(
      c.run<MailMessage>(`INSERT INTO mail_outbox (kind, recipient_user_id, recipient_email, subject, body, path, group_id, actor_id, created_at, next_attempt_at, invitation_id, topic_id, comment_id, calendar)
             VALUES (@kind, @recipient_user_id, @recipient_email, @subject, @body, @path, @group_id, @actor_id, @created_at, @created_at, @invitation_id, @topic_id, @comment_id, @calendar) RETURNING *`,
        { invitation_id: null, topic_id: null, comment_id: null, calendar: null, ...m }),
      returned
    ),
  list: (status, page) =>
    status === undefined
      ? c.all(`SELECT * FROM mail_outbox ORDER BY id LIMIT ? OFFSET ?`, [page.limit, page.offset], asRecord<MailMessage>())
      : c.all(`SELECT * FROM mail_outbox WHERE status = ? ORDER BY id LIMIT ? OFFSET ?`, [status, page.limit, page.offset], asRecord<MailMessage>()),
  byId: (id) => c.get(`SELECT * FROM mail_outbox WHERE id = ?`, [id], asRecord<MailMessage>()),
  claimDue: (now, until, limit) => claim<MailMessage>(c, "mail_outbox", now, until, limit),
  record: (id, patch) =>
    Effect.asVoid(c.run(`UPDATE mail_outbox SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at, last_error = @last_error,
                         server_reply = @server_reply, sent_at = @sent_at, claimed_until = NULL WHERE id = @id`, { ...patch, id })),
  ...outboxOps(c, "mail_outbox")
})

export const makeChatbotsRepo = (c: SqlClient): ChatbotsRepo => ({
  byId: (id) => c.get(`SELECT * FROM chatbots WHERE id = ?`, [id], Chatbot.fromRow),
  ofGroup: (groupId) => c.all(`SELECT * FROM chatbots WHERE group_id = ? ORDER BY id`, [groupId], Chatbot.fromRow),
  insert: (bot) => Effect.map(insertRow(c, "chatbots", Chatbot.toRow({ ...bot, updated_at: bot.created_at })), (r) => Chatbot.fromRow(returned(r))),
  update: (id, patch) => {
    const row = Chatbot.toRow(patch)
    return Effect.asVoid(c.run(`UPDATE chatbots SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
  },
  delete: (id) => Effect.asVoid(c.run(`DELETE FROM chatbots WHERE id = ?`, [id]))
})

export const makeEventsRepo = (c: SqlClient): EventsRepo => ({
  // the event answers how many chatbots take it: most groups have none, and then the event is one statement
  publish: (e) =>
    Effect.flatMap(
      c.run<{ id: number; subscribers: number }>(`INSERT INTO webhook_events (kind, group_id, actor_id, eventable_type, eventable_id, message, created_at)
             VALUES (@kind, @group_id, @actor_id, @eventable_type, @eventable_id, @message, @created_at)
             RETURNING id, (SELECT count(*) FROM chatbots b WHERE b.group_id = @group_id AND ${c.dialect.eventKindIn("b.event_kinds", "kind")}) AS subscribers`,
        Object.assign({}, e, { message: JSON.stringify(e.message) })),
      (r) => {
        const { id, subscribers } = returned(r)
        const event = Object.assign({}, e, { id: Number(id) })
        // every value from the event's row: the statement's parameters are typed by what they are compared with
        return Number(subscribers) === 0 ? Effect.succeed(event) : Effect.as(
          c.run(`INSERT INTO webhook_deliveries (event_id, chatbot_id, next_attempt_at, created_at)
                 SELECT e.id, b.id, e.created_at, e.created_at FROM webhook_events e JOIN chatbots b ON b.group_id = e.group_id
                 WHERE e.id = @id AND ${c.dialect.eventKindIn("b.event_kinds", "kind")} ORDER BY b.id`, { id: event.id, kind: e.kind }),
          event
        )
      }
    ),
  byIds: (list) =>
    list.length === 0 ? Effect.succeed([]) : c.all(`SELECT * FROM webhook_events WHERE ${c.dialect.ids.has("id", "ids")}`, { ids: c.dialect.ids.bind(list) }, toEvent)
})

export const makeDeliveriesRepo = (c: SqlClient): DeliveriesRepo => ({
  claimDue: (now, until, limit) => claim<Delivery>(c, "webhook_deliveries", now, until, limit),
  record: (id, patch) =>
    Effect.asVoid(c.run(`UPDATE webhook_deliveries SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at,
                         last_status = @last_status, last_error = @last_error, delivered_at = @delivered_at, claimed_until = NULL
                         WHERE id = @id`, { ...patch, id })),
  byId: (id) => c.get(`SELECT * FROM webhook_deliveries WHERE id = ?`, [id], asRecord<Delivery>()),
  // a filter left out is a NULL compared with itself: the typed casts say what each value is where the engine asks
  list: (filter, page) =>
    c.all(`SELECT d.*, e.group_id AS group_id, e.kind AS event_kind FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
           WHERE (CAST(@group_id AS BIGINT) IS NULL OR e.group_id = CAST(@group_id AS BIGINT)) AND (CAST(@status AS TEXT) IS NULL OR d.status = CAST(@status AS TEXT))
           ORDER BY d.id DESC LIMIT @limit OFFSET @offset`, { group_id: filter.group_id ?? null, status: filter.status ?? null, limit: page.limit, offset: page.offset }) as never,
  ...outboxOps(c, "webhook_deliveries")
})
