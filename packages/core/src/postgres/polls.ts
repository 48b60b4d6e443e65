/** Polls, options, ballots and outcomes on PostgreSQL: the SQLite adapter's queries, counters kept by triggers. */
import { Effect } from "effect"
import type { PollOption } from "../domain/polls.js"
import type { Id } from "../domain/records.js"
import { type OptionTally, VOTER_NAMES } from "../rules/pollTypes.js"
import type { OutcomesRepo, PollOptionsRepo, PollsRepo, PollStatus, StancesRepo } from "../ports/polls.js"
import { type ChoiceRow, pollsInGroupSql, SELECT_POLL, type StanceRow, toOutcome, toPoll, withChoices } from "../sql/records.js"
import { fromBools, setClause } from "../sql/rows.js"
import type { PgRunner } from "./db.js"
import { insertRow, params as scopeParams, where as scopeWhere } from "./records.js"

const one = (row: unknown) => (row === undefined ? undefined : toPoll(row))
const polls = (rows: Array<unknown>) => rows.map(toPoll)

const inGroupSql = (status: PollStatus) => pollsInGroupSql(status, scopeWhere)

export const makePollsRepo = (q: PgRunner): PollsRepo => ({
  byId: (id) => Effect.map(q.get(`${SELECT_POLL} WHERE p.id = ?`, id), one),
  byKey: (key) => Effect.map(q.get(`${SELECT_POLL} WHERE p.key = ?`, key), one),
  byIds: (ids) => (ids.length === 0 ? Effect.succeed([]) : Effect.map(q.all(`${SELECT_POLL} WHERE p.id = ANY(?) ORDER BY p.id`, [...ids]), polls)),
  ofTopics: (topicIds) =>
    topicIds.length === 0
      ? Effect.succeed([])
      : Effect.map(q.all(`${SELECT_POLL} WHERE p.topic_id = ANY(?) AND p.discarded_at IS NULL ORDER BY p.id`, [...topicIds]), polls),
  inGroup: (scope, groupId, status, page) =>
    Effect.map(
      q.all(`SELECT p.*, t.group_id AS group_id ${inGroupSql(status)} ORDER BY p.created_at DESC, p.id DESC LIMIT @limit OFFSET @offset`, {
        ...scopeParams(scope, { groupId }),
        limit: page.limit,
        offset: page.offset
      }),
      polls
    ),
  countInGroup: (scope, groupId, status) =>
    Effect.map(q.get<{ n: number }>(`SELECT count(*) AS n ${inGroupSql(status)}`, scopeParams(scope, { groupId })), (r) => r!.n),
  insert: (p) =>
    Effect.flatMap(insertRow(q, "polls", fromBools({ ...p, updated_at: p.created_at }), "id"), (r) =>
      Effect.map(q.get(`${SELECT_POLL} WHERE p.id = ?`, r.rows[0]!.id), (row) => toPoll(row))),
  update: (id, patch) => {
    const row = fromBools(patch)
    return Effect.asVoid(q.run(`UPDATE polls SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
  },
  openInGroup: (groupId) =>
    Effect.map(
      q.all(`${SELECT_POLL} WHERE t.group_id = ? AND p.opened_at IS NOT NULL AND p.closed_at IS NULL AND p.discarded_at IS NULL ORDER BY p.id`, groupId),
      polls
    ),
  lapsed: (now) =>
    Effect.map(
      q.all(`${SELECT_POLL} WHERE p.closed_at IS NULL AND p.opened_at IS NOT NULL AND p.discarded_at IS NULL AND p.closing_at <= ? ORDER BY p.closing_at`, now),
      polls
    ),
  closingSoon: (now, until) =>
    Effect.map(
      q.all(`${SELECT_POLL} WHERE p.closed_at IS NULL AND p.opened_at IS NOT NULL AND p.discarded_at IS NULL
             AND p.closing_soon_sent_at IS NULL AND p.closing_at > ? AND p.closing_at <= ? ORDER BY p.closing_at`, now, until),
      polls
    )
})

export const makePollOptionsRepo = (q: PgRunner): PollOptionsRepo => ({
  ofPolls: (ids) =>
    ids.length === 0
      ? Effect.succeed([])
      : q.all<PollOption>(`SELECT id, poll_id, name, priority FROM poll_options WHERE poll_id = ANY(?) ORDER BY poll_id, priority`, [...ids]),
  replace: Effect.fnUntraced(function*(pollId, names) {
    const existing = yield* q.all<{ id: Id; name: string }>(`SELECT id, name FROM poll_options WHERE poll_id = ?`, pollId)
    const wanted = new Set(names)
    for (const o of existing) if (!wanted.has(o.name)) yield* q.run(`DELETE FROM poll_options WHERE id = ?`, o.id)
    const have = new Map(existing.map((o) => [o.name, o.id]))
    for (const [priority, name] of names.entries()) {
      const id = have.get(name)
      if (id === undefined) yield* q.run(`INSERT INTO poll_options (poll_id, name, priority) VALUES (?, ?, ?)`, pollId, name, priority)
      else yield* q.run(`UPDATE poll_options SET priority = ? WHERE id = ?`, priority, id)
    }
  })
})

export const makeStancesRepo = (q: PgRunner): StancesRepo => {
  const load = (where: string, ...args: Array<unknown>) =>
    Effect.flatMap(q.all<StanceRow>(`SELECT * FROM stances WHERE ${where} ORDER BY id`, ...args), (rows) =>
      rows.length === 0
        ? Effect.succeed([])
        : Effect.map(
          q.all<ChoiceRow>(`SELECT stance_id, poll_option_id, score FROM stance_choices WHERE stance_id = ANY(?) ORDER BY poll_option_id`, rows.map((r) => r.id)),
          (choices) => withChoices(rows, choices)
        ))
  const writeChoices = Effect.fnUntraced(function*(stanceId: Id, choices: ReadonlyMap<Id, number>) {
    yield* q.run(`DELETE FROM stance_choices WHERE stance_id = ?`, stanceId)
    if (choices.size === 0) return
    yield* q.run(
      `INSERT INTO stance_choices (stance_id, poll_option_id, score) SELECT ?, o, s FROM unnest(?::bigint[], ?::bigint[]) AS c(o, s)`,
      stanceId,
      [...choices.keys()],
      [...choices.values()]
    )
  })
  return {
    byId: (id) => Effect.map(load("id = ?", id), (r) => r[0]),
    byIds: (ids) => load("id = ANY(?)", [...ids]),
    latestOf: (pollIds) => load("poll_id = ANY(?) AND latest = 1 AND revoked_at IS NULL", [...pollIds]),
    tallies: Effect.fnUntraced(function*(pollIds) {
      const out = new Map<Id, { voters_count: number; cast_count: number; options: Array<OptionTally> }>()
      const rows = yield* q.all<
        { poll_id: Id; poll_type: string; voters_count: number; cast_count: number; option_id: Id | null } & Omit<OptionTally, "option_id" | "voter_ids">
      >(`SELECT p.id AS poll_id, p.poll_type, p.voters_count, p.cast_count, o.id AS option_id, o.total_score AS score,
          o.voter_count, o.yes_count AS yes, o.maybe_count AS maybe, o.no_count AS no
          FROM polls p LEFT JOIN poll_options o ON o.poll_id = p.id
          WHERE p.id = ANY(?) ORDER BY p.id, o.priority`, [...pollIds])
      // the first few counted voters of every option at once
      const optionIds = rows.flatMap((r) => (r.option_id !== null && r.voter_count > 0 ? [r.option_id] : []))
      const names = new Map<Id, Array<Id>>()
      if (optionIds.length > 0) {
        const voters = yield* q.all<{ option_id: Id; participant_id: Id }>(
          `SELECT o.id AS option_id, v.participant_id FROM unnest(?::bigint[]) AS o(id) CROSS JOIN LATERAL (
             SELECT st.participant_id FROM stance_choices sc JOIN stances st ON st.id = sc.stance_id JOIN polls p ON p.id = st.poll_id
             WHERE sc.poll_option_id = o.id AND sc.counted = 1 AND (sc.score > 0 OR p.poll_type = 'meeting')
             ORDER BY sc.stance_id LIMIT ${VOTER_NAMES}) v`,
          optionIds
        )
        for (const v of voters) {
          const list = names.get(v.option_id)
          if (list === undefined) names.set(v.option_id, [v.participant_id])
          else list.push(v.participant_id)
        }
      }
      for (const { poll_id, poll_type: _, voters_count, cast_count, option_id, ...o } of rows) {
        let tally = out.get(poll_id)
        if (tally === undefined) out.set(poll_id, (tally = { voters_count, cast_count, options: [] }))
        if (option_id === null) continue
        tally.options.push({ ...o, option_id, voter_ids: names.get(option_id) ?? [] })
      }
      return out
    }),
    mineOf: (pollIds, userId) => load(`poll_id = ANY(?) AND participant_id = ? AND latest = 1 AND revoked_at IS NULL`, [...pollIds], userId),
    latestFor: (pollId, userId) => Effect.map(load("poll_id = ? AND participant_id = ? AND latest = 1", pollId, userId), (r) => r[0]),
    insert: Effect.fnUntraced(function*(st) {
      yield* q.run(`UPDATE stances SET latest = 0 WHERE poll_id = ? AND participant_id = ? AND latest = 1`, st.poll_id, st.participant_id)
      const inserted = yield* q.run(
        `INSERT INTO stances (poll_id, participant_id, inviter_id, latest, cast_at, reason, reason_format, created_at, updated_at)
         VALUES (@poll_id, @participant_id, @inviter_id, 1, @cast_at, @reason, @reason_format, @created_at, @created_at) RETURNING id`,
        { ...st, choices: undefined }
      )
      const id = inserted.rows[0]!.id as number
      yield* writeChoices(id, st.choices)
      // the choices in the order a read gives them (by option id), so the answer equals the next read's
      const choices = new Map([...st.choices].sort(([a], [b]) => a - b))
      return { ...st, choices, id, latest: true, revoked_at: null, updated_at: st.created_at }
    }),
    update: Effect.fnUntraced(function*(id, patch) {
      yield* q.run(`UPDATE stances SET cast_at = ?, reason = ?, reason_format = ?, updated_at = ? WHERE id = ?`, patch.cast_at, patch.reason, patch.reason_format, patch.updated_at, id)
      yield* writeChoices(id, patch.choices)
    }),
    revoke: (id, at, revokerId) => Effect.asVoid(q.run(`UPDATE stances SET revoked_at = ?, revoker_id = ?, updated_at = ? WHERE id = ?`, at, revokerId, at, id)),
    unrevoke: (id, at) => Effect.asVoid(q.run(`UPDATE stances SET revoked_at = NULL, revoker_id = NULL, updated_at = ? WHERE id = ?`, at, id))
  }
}

export const makeOutcomesRepo = (q: PgRunner): OutcomesRepo => ({
  byId: (id) => Effect.map(q.get(`SELECT * FROM outcomes WHERE id = ?`, id), (r) => (r === undefined ? undefined : toOutcome(r))),
  byIds: (ids) => (ids.length === 0 ? Effect.succeed([]) : Effect.map(q.all(`SELECT * FROM outcomes WHERE id = ANY(?)`, [...ids]), (r) => r.map(toOutcome))),
  latestOf: (pollIds) =>
    pollIds.length === 0 ? Effect.succeed([]) : Effect.map(q.all(`SELECT * FROM outcomes WHERE latest = 1 AND poll_id = ANY(?)`, [...pollIds]), (r) => r.map(toOutcome)),
  insert: Effect.fnUntraced(function*(o) {
    yield* q.run(`UPDATE outcomes SET latest = 0 WHERE poll_id = ?`, o.poll_id)
    const r = yield* q.run(
      `INSERT INTO outcomes (poll_id, author_id, statement, statement_format, poll_option_id, review_on, latest, created_at, updated_at)
       VALUES (@poll_id, @author_id, @statement, @statement_format, @poll_option_id, @review_on, 1, @created_at, @created_at) RETURNING *`,
      o
    )
    return toOutcome(r.rows[0])
  }),
  update: (id, patch) => {
    const row = fromBools(patch)
    return Effect.asVoid(q.run(`UPDATE outcomes SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
  },
  reviewDue: (today) =>
    Effect.map(
      q.all(`SELECT o.* FROM outcomes o JOIN polls p ON p.id = o.poll_id
             WHERE o.review_sent_at IS NULL AND o.latest = 1 AND o.review_on IS NOT NULL AND o.review_on <= ? AND p.discarded_at IS NULL`, today),
      (r) => r.map(toOutcome)
    )
})
