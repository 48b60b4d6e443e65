/**
 * What both stores' adapters share: rows (the same columns on SQLite and PostgreSQL, booleans as 0/1 or booleans, JSON
 * lists as text) turned into records and back, and the SQL text both dialects speak alike.
 */
import type { Stance } from "../domain/polls.js"
import { Group, GroupCounts, type Id, type TopicFilter } from "../domain/records.js"
import { json } from "./rows.js"
import type { WebhookEvent } from "../domain/webhooks.js"
import type { OutboxBacklog } from "../ports/outbox.js"
import type { PollStatus } from "../ports/polls.js"

export const USER_COLUMNS =
  "id, name, username, email, email_sha256, country, time_zone, locale, catch_up, catch_up_sent_at, is_admin, bot, deactivated_at, deactivator_id, redacted_at, placeholder, created_at, updated_at"
/** A group row with the counters the triggers keep on it. */
export const countedGroup = (row: Record<string, unknown>): { readonly group: Group; readonly counts: GroupCounts } => ({
  group: Group.fromRow(row),
  counts: GroupCounts.fromRow(row)
})

/** A comment with its discussion's topic_id (read through the discussion). */
export const SELECT_COMMENT = `SELECT c.*, d.topic_id FROM comments c JOIN discussions d ON d.id = c.discussion_id`

/** Loomio's position keys: zero-filled 5-digit segments, the parent's key first. */
export const positionSegment = (position: number) => String(position).padStart(5, "0")

export const INVITATION_COLUMNS = `id, kind, user_id, inviter_id, group_id, topic_id, message, created_at, expires_at, used_at`
export const LOGIN_CODE_COLUMNS = `id, user_id, code_salt, code_hash, attempts, created_at, expires_at, used_at`
export const SESSION_COLUMNS = `id, user_id, created_at, last_seen_at, expires_at`

export const toEvent = (row: unknown): WebhookEvent => {
  const r = row as Record<string, unknown>
  return Object.assign({}, r, { message: json(r.message) }) as unknown as WebhookEvent
}

/** What waits in an outbox table and what is dead: `toBacklog` reads its one row. */
export const outboxBacklogSql = (table: "webhook_deliveries" | "mail_outbox") =>
  `SELECT count(*) FILTER (WHERE status IN ('pending', 'failed')) AS waiting, count(*) FILTER (WHERE status = 'dead') AS dead,
          min(created_at) FILTER (WHERE status IN ('pending', 'failed')) AS oldest FROM ${table}`
export const toBacklog = (row: { waiting: number; dead: number; oldest: string | null }): OutboxBacklog => ({
  waiting: row.waiting,
  dead: row.dead,
  oldest_waiting_at: row.oldest
})

/** Due: waiting (pending or failed), its time come, and nobody's claim on it still running. */
export const OUTBOX_DUE = `status IN ('pending', 'failed') AND next_attempt_at <= @now AND (claimed_until IS NULL OR claimed_until <= @now)`

/** The polls of a group's visible threads (the thread scope of `where`), of a status. */
export const pollsInGroupSql = (status: PollStatus, where: (filter: TopicFilter) => string) =>
  `FROM polls p JOIN (SELECT t.id, t.group_id ${where({ groupId: 0 })}) t ON t.id = p.topic_id
   WHERE p.discarded_at IS NULL ${
    status === "active" ? "AND p.opened_at IS NOT NULL AND p.closed_at IS NULL" : status === "closed" ? "AND p.closed_at IS NOT NULL" : ""
  }`

/** A poll's group is its thread's. */
export const SELECT_POLL = `SELECT p.*, t.group_id AS group_id FROM polls p JOIN topics t ON t.id = p.topic_id`

export type StanceRow = typeof Stance.Type
export type ChoiceRow = { stance_id: Id; poll_option_id: Id; score: number }
/** Ballots (their rows read by `Stance.fromRow`) with their choices (read apart, one query for all the ballots). */
export const withChoices = (rows: Array<StanceRow>, choiceRows: Array<ChoiceRow>): Array<Stance> => {
  const byStance = new Map<Id, Map<Id, number>>()
  for (const c of choiceRows) {
    let m = byStance.get(c.stance_id)
    if (m === undefined) byStance.set(c.stance_id, (m = new Map()))
    m.set(c.poll_option_id, c.score)
  }
  // not `{ ...r, choices }`: a member after a spread is V8 11's slow path, a microsecond a ballot (bench/experiments/spread.js)
  return rows.map((r) => Object.assign({}, r, { choices: byStance.get(r.id) ?? new Map() }))
}

