/**
 * People's tokens, the mail outbox and webhooks on PostgreSQL. Outbox items are claimed with
 * `FOR UPDATE SKIP LOCKED`: servers sharing the database each take different due rows, and a claim is a
 * lease (`claimed_until`) that another server takes over once it lapses (its holder killed).
 */
import { Effect } from "effect"
import type { Delivery } from "../domain/webhooks.js"
import type { MailMessage } from "../domain/records.js"
import type { OutboxOps } from "../ports/outbox.js"
import type { InvitationToken, LoginCode, PeopleRepos, Session } from "../ports/people.js"
import type { MailRepo } from "../ports/store.js"
import type { ChatbotsRepo, DeliveriesRepo, EventsRepo } from "../ports/webhooks.js"
import {
  chatbotRow,
  INVITATION_COLUMNS,
  LOGIN_CODE_COLUMNS,
  OUTBOX_DUE,
  outboxBacklogSql,
  SESSION_COLUMNS,
  toBacklog,
  toChatbot,
  toEvent
} from "../sql/records.js"
import { setClause } from "../sql/rows.js"
import type { PgRunner } from "./db.js"
import { insertRow } from "./records.js"

export const makePeopleRepos = (q: PgRunner): PeopleRepos => ({
  invitations: {
    insert: (t) =>
      Effect.map(
        q.run(`INSERT INTO invitation_tokens (token_hash, kind, user_id, inviter_id, group_id, topic_id, message, created_at, expires_at)
               VALUES (@token_hash, @kind, @user_id, @inviter_id, @group_id, @topic_id, @message, @created_at, @expires_at) RETURNING ${INVITATION_COLUMNS}`, t),
        (r) => r.rows[0] as unknown as InvitationToken
      ),
    byHash: (hash) => q.get<InvitationToken>(`SELECT ${INVITATION_COLUMNS} FROM invitation_tokens WHERE token_hash = ?`, hash),
    markUsed: (id, at) => Effect.asVoid(q.run(`UPDATE invitation_tokens SET used_at = ? WHERE id = ?`, at, id)),
    byId: (id) => q.get<InvitationToken>(`SELECT ${INVITATION_COLUMNS} FROM invitation_tokens WHERE id = ?`, id),
    rehash: (id, hash) => Effect.asVoid(q.run(`UPDATE invitation_tokens SET token_hash = ? WHERE id = ?`, hash, id)),
    supersede: (userId, kind, placeId, at) =>
      Effect.asVoid(q.run(`UPDATE invitation_tokens SET expires_at = ? WHERE user_id = ? AND kind = ? AND used_at IS NULL
                           AND (CASE kind WHEN 'group' THEN group_id ELSE topic_id END) = ? AND expires_at > ?`, at, userId, kind, placeId, at))
  },
  loginCodes: {
    insert: (c) =>
      Effect.map(
        q.run(`INSERT INTO login_codes (user_id, code_salt, code_hash, link_hash, created_at, expires_at)
               VALUES (@user_id, @code_salt, @code_hash, @link_hash, @created_at, @expires_at) RETURNING ${LOGIN_CODE_COLUMNS}`, c),
        (r) => r.rows[0] as unknown as LoginCode
      ),
    latestLive: (userId, now) =>
      q.get<LoginCode>(`SELECT ${LOGIN_CODE_COLUMNS} FROM login_codes WHERE user_id = ? AND used_at IS NULL AND expires_at > ? ORDER BY id DESC LIMIT 1`, userId, now),
    byLinkHash: (hash) => q.get<LoginCode>(`SELECT ${LOGIN_CODE_COLUMNS} FROM login_codes WHERE link_hash = ?`, hash),
    countAttempt: (id) => Effect.asVoid(q.run(`UPDATE login_codes SET attempts = attempts + 1 WHERE id = ?`, id)),
    markUsed: (id, at) => Effect.asVoid(q.run(`UPDATE login_codes SET used_at = ? WHERE id = ?`, at, id))
  },
  sessions: {
    insert: (x) =>
      Effect.map(
        q.run(`INSERT INTO sessions (token_hash, user_id, created_at, last_seen_at, expires_at)
               VALUES (@token_hash, @user_id, @created_at, @last_seen_at, @expires_at) RETURNING ${SESSION_COLUMNS}`, x),
        (r) => r.rows[0] as unknown as Session
      ),
    byHash: (hash) => q.get<Session>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE token_hash = ?`, hash),
    touch: (id, lastSeenAt, expiresAt) => Effect.asVoid(q.run(`UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?`, lastSeenAt, expiresAt, id)),
    deleteForUser: (userId) => Effect.asVoid(q.run(`DELETE FROM sessions WHERE user_id = ?`, userId))
  },
  mutes: {
    isMuted: (userId, groupId) => Effect.map(q.get(`SELECT 1 AS one FROM group_mutes WHERE user_id = ? AND group_id = ?`, userId, groupId), (r) => r !== undefined),
    mute: (userId, groupId, at) =>
      Effect.asVoid(q.run(`INSERT INTO group_mutes (user_id, group_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, userId, groupId, at)),
    insertToken: (t) =>
      Effect.asVoid(q.run(`INSERT INTO unsubscribe_tokens (token_hash, user_id, group_id, created_at) VALUES (@token_hash, @user_id, @group_id, @created_at)`, t)),
    byTokenHash: (hash) => q.get<{ user_id: number; group_id: number }>(`SELECT user_id, group_id FROM unsubscribe_tokens WHERE token_hash = ?`, hash)
  },
  // in the shared database: every server counts the same sign-in attempts
  rateEvents: {
    record: (key, at) => Effect.asVoid(q.run(`INSERT INTO rate_events (key, at) VALUES (?, ?)`, key, at)),
    since: (key, since) => Effect.map(q.all<{ at: string }>(`SELECT at FROM rate_events WHERE key = ? AND at > ? ORDER BY at`, key, since), (r) => r.map((x) => x.at)),
    prune: (before) => Effect.asVoid(q.run(`DELETE FROM rate_events WHERE at <= ?`, before))
  }
})

type OutboxTable = "webhook_deliveries" | "mail_outbox"

/** Claims due rows for `until`: rows another server is claiming right now are skipped, not waited for. */
const claim = <T>(q: PgRunner, table: OutboxTable, now: string, until: string, limit: number) =>
  Effect.map(
    q.run(`UPDATE ${table} SET claimed_until = @until WHERE id IN (
             SELECT id FROM ${table} WHERE ${OUTBOX_DUE} ORDER BY next_attempt_at, id LIMIT @limit FOR UPDATE SKIP LOCKED)
           RETURNING *`, { now, until, limit }),
    (r) => (r.rows as Array<T & { next_attempt_at: string; id: number }>).sort((a, b) => a.next_attempt_at < b.next_attempt_at ? -1 : a.next_attempt_at > b.next_attempt_at ? 1 : a.id - b.id)
  )

const outboxOps = (q: PgRunner, table: OutboxTable): OutboxOps => ({
  retry: (list, now) =>
    Effect.map(
      list === undefined
        ? q.run(`UPDATE ${table} SET status = 'failed', next_attempt_at = ?, claimed_until = NULL WHERE status = 'dead'`, now)
        : q.run(`UPDATE ${table} SET status = 'failed', next_attempt_at = ?, claimed_until = NULL
                 WHERE status IN ('failed', 'dead') AND id = ANY(?)`, now, [...list]),
      (r) => r.changes
    ),
  nextDueAt: () =>
    Effect.map(
      q.get<{ at: string | null }>(`SELECT min(GREATEST(next_attempt_at, coalesce(claimed_until, ''))) AS at FROM ${table} WHERE status IN ('pending', 'failed')`),
      (r) => r?.at ?? undefined
    ),
  backlog: () => Effect.map(q.get<{ waiting: number; dead: number; oldest: string | null }>(outboxBacklogSql(table)), (r) => toBacklog(r!))
})

export const makeMailRepo = (q: PgRunner): MailRepo => ({
  enqueue: (m) =>
    Effect.map(
      q.run(`INSERT INTO mail_outbox (kind, recipient_user_id, recipient_email, subject, body, path, group_id, actor_id, created_at, next_attempt_at, invitation_id)
             VALUES (@kind, @recipient_user_id, @recipient_email, @subject, @body, @path, @group_id, @actor_id, @created_at, @created_at, @invitation_id) RETURNING *`, {
        invitation_id: null,
        ...m
      }),
      (r) => r.rows[0] as unknown as MailMessage
    ),
  list: (status, page) =>
    status === undefined
      ? q.all<MailMessage>(`SELECT * FROM mail_outbox ORDER BY id LIMIT ? OFFSET ?`, page.limit, page.offset)
      : q.all<MailMessage>(`SELECT * FROM mail_outbox WHERE status = ? ORDER BY id LIMIT ? OFFSET ?`, status, page.limit, page.offset),
  byId: (id) => q.get<MailMessage>(`SELECT * FROM mail_outbox WHERE id = ?`, id),
  claimDue: (now, until, limit) => claim<MailMessage>(q, "mail_outbox", now, until, limit),
  record: (id, patch) =>
    Effect.asVoid(q.run(`UPDATE mail_outbox SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at, last_error = @last_error,
                         server_reply = @server_reply, sent_at = @sent_at, claimed_until = NULL WHERE id = @id`, { ...patch, id })),
  ...outboxOps(q, "mail_outbox")
})

export const makeChatbotsRepo = (q: PgRunner): ChatbotsRepo => ({
  byId: (id) => Effect.map(q.get(`SELECT * FROM chatbots WHERE id = ?`, id), (row) => (row === undefined ? undefined : toChatbot(row))),
  ofGroup: (groupId) => Effect.map(q.all(`SELECT * FROM chatbots WHERE group_id = ? ORDER BY id`, groupId), (r) => r.map(toChatbot)),
  subscribed: (groupId, kind) =>
    Effect.map(q.all(`SELECT * FROM chatbots WHERE group_id = ? AND event_kinds::jsonb @> jsonb_build_array(?::text) ORDER BY id`, groupId, kind), (r) =>
      r.map(toChatbot)),
  insert: (c) => Effect.map(insertRow(q, "chatbots", chatbotRow({ ...c, updated_at: c.created_at })), (r) => toChatbot(r.rows[0])),
  update: (id, patch) => {
    const row = chatbotRow(patch)
    return Effect.asVoid(q.run(`UPDATE chatbots SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
  },
  delete: (id) => Effect.asVoid(q.run(`DELETE FROM chatbots WHERE id = ?`, id))
})

export const makeEventsRepo = (q: PgRunner): EventsRepo => ({
  insert: (e) =>
    Effect.map(
      q.run(`INSERT INTO webhook_events (kind, group_id, actor_id, eventable_type, eventable_id, message, created_at)
             VALUES (@kind, @group_id, @actor_id, @eventable_type, @eventable_id, @message, @created_at) RETURNING id`, { ...e, message: JSON.stringify(e.message) }),
      (r) => ({ ...e, id: r.rows[0]!.id as number })
    ),
  byIds: (list) => (list.length === 0 ? Effect.succeed([]) : Effect.map(q.all(`SELECT * FROM webhook_events WHERE id = ANY(?)`, [...list]), (r) => r.map(toEvent)))
})

export const makeDeliveriesRepo = (q: PgRunner): DeliveriesRepo => ({
  insert: (d) =>
    Effect.asVoid(q.run(`INSERT INTO webhook_deliveries (event_id, chatbot_id, next_attempt_at, created_at)
                         VALUES (@event_id, @chatbot_id, @next_attempt_at, @created_at)`, d)),
  claimDue: (now, until, limit) => claim<Delivery>(q, "webhook_deliveries", now, until, limit),
  record: (id, patch) =>
    Effect.asVoid(q.run(`UPDATE webhook_deliveries SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at,
                         last_status = @last_status, last_error = @last_error, delivered_at = @delivered_at, claimed_until = NULL
                         WHERE id = @id`, { ...patch, id })),
  byId: (id) => q.get<Delivery>(`SELECT * FROM webhook_deliveries WHERE id = ?`, id),
  list: (filter, page) =>
    q.all(`SELECT d.*, e.group_id AS group_id, e.kind AS event_kind FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
           WHERE (@group_id::bigint IS NULL OR e.group_id = @group_id::bigint) AND (@status::text IS NULL OR d.status = @status::text)
           ORDER BY d.id DESC LIMIT @limit OFFSET @offset`, { group_id: filter.group_id ?? null, status: filter.status ?? null, limit: page.limit, offset: page.offset }) as never,
  ...outboxOps(q, "webhook_deliveries")
})
