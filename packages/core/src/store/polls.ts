/** Polls, their options, ballots (stances with their choices) and outcomes; the results are counters kept by triggers. */
import { Effect } from "effect"
import { Delegation, Outcome, Poll, PollOption, Stance } from "../domain/polls.js"
import type { Id } from "../domain/records.js"
import type { DelegationsRepo, OutcomesRepo, PollOptionsRepo, PollsRepo, PollStatus, PollTemplatesRepo, StancesRepo } from "../ports/polls.js"
import { PollTemplate } from "../domain/templates.js"
import { type OptionTally, VOTER_NAMES } from "../rules/pollTypes.js"
import { type ChoiceRow, pollsInGroupSql, SELECT_POLL, withChoices } from "../sql/records.js"
import { asRecord, insertRow, returned, setClause, type SqlClient } from "./client.js"
import { withPage } from "../sql/scope.js"
import { readAhead, topicScope } from "./threads.js"
import { columnValue } from "../domain/model.js"

/** Not in a deleted group: a deleted group's polls wait for nobody's vote and the scheduler leaves them until it is restored. */
const LIVE_GROUP = "NOT EXISTS (SELECT 1 FROM groups dg WHERE dg.id = t.group_id AND dg.archived_at IS NOT NULL)"

export const makePollsRepo = (c: SqlClient): PollsRepo => {
  const { ids } = c.dialect
  const scope = topicScope(ids)
  const inGroupSql = (status: PollStatus) => pollsInGroupSql(status, scope.where)
  // the poll's thread and group are read with it, for the request's next steps
  const ahead = readAhead(c, "p.*, t.group_id AS group_id", "polls", "p", Poll.fromRow, "Poll")
  return {
    byId: ahead.byId,
    byKey: ahead.byKey,
    byIds: (list) => (list.length === 0 ? Effect.succeed([]) : c.all(`${SELECT_POLL} WHERE ${ids.has("p.id", "ids")} ORDER BY p.id`, { ids: ids.bind(list) }, Poll.fromRow)),
    ofTopics: (topicIds) =>
      topicIds.length === 0
        ? Effect.succeed([])
        : c.all(`${SELECT_POLL} WHERE ${ids.has("p.topic_id", "ids")} AND p.discarded_at IS NULL ORDER BY p.id`, { ids: ids.bind(topicIds) }, Poll.fromRow),
    inGroup: (visible, groupId, status, page) =>
      c.all(`SELECT p.*, t.group_id AS group_id ${inGroupSql(status)} ORDER BY p.created_at DESC, p.id DESC LIMIT @limit OFFSET @offset`,
        withPage(scope.params(visible, { groupId }), page), Poll.fromRow),
    countInGroup: (visible, groupId, status) =>
      Effect.map(c.get(`SELECT count(*) AS n ${inGroupSql(status)}`, scope.params(visible, { groupId })), (r) => Number(r!.n)),
    insert: (p) =>
      Effect.flatMap(insertRow<{ id: Id }>(c, "polls", Poll.toRow(Object.assign({}, p, { updated_at: p.created_at })), "id"), (r) =>
        Effect.map(c.get(`${SELECT_POLL} WHERE p.id = ?`, [returned(r).id], Poll.fromRow), (poll) => poll!)),
    update: (id, patch) => {
      const row = Poll.toRow(patch)
      return Effect.asVoid(c.run(`UPDATE polls SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
    },
    awaitingVote: (userId, limit) =>
      c.all(`${SELECT_POLL} JOIN stances s ON s.poll_id = p.id AND s.participant_id = ? AND s.latest = TRUE
             WHERE s.cast_at IS NULL AND s.revoked_at IS NULL AND p.opened_at IS NOT NULL AND p.closed_at IS NULL AND p.discarded_at IS NULL
             AND ${LIVE_GROUP} ORDER BY p.closing_at, p.id LIMIT ?`, [userId, limit], Poll.fromRow),
    openInGroup: (groupId) =>
      c.all(`${SELECT_POLL} WHERE t.group_id = ? AND p.opened_at IS NOT NULL AND p.closed_at IS NULL AND p.discarded_at IS NULL ORDER BY p.id`, [groupId], Poll.fromRow),
    lapsed: (now) =>
      c.all(`${SELECT_POLL} WHERE p.closed_at IS NULL AND p.opened_at IS NOT NULL AND p.discarded_at IS NULL AND p.closing_at <= ? AND ${LIVE_GROUP}
             ORDER BY p.closing_at`, [now], Poll.fromRow),
    closingSoon: (now, until) =>
      c.all(`${SELECT_POLL} WHERE p.closed_at IS NULL AND p.opened_at IS NOT NULL AND p.discarded_at IS NULL
             AND p.closing_soon_sent_at IS NULL AND p.closing_at > ? AND p.closing_at <= ? AND ${LIVE_GROUP} ORDER BY p.closing_at`, [now, until], Poll.fromRow)
  }
}

export const makePollOptionsRepo = (c: SqlClient): PollOptionsRepo => ({
  ofPolls: (list) =>
    list.length === 0
      ? Effect.succeed([])
      : c.all(`SELECT id, poll_id, name, priority FROM poll_options WHERE ${c.dialect.ids.has("poll_id", "ids")} ORDER BY poll_id, priority`,
        { ids: c.dialect.ids.bind(list) }, PollOption.fromRow),
  replace: Effect.fnUntraced(function*(pollId, names) {
    const existing = yield* c.all(`SELECT id, name FROM poll_options WHERE poll_id = ?`, [pollId], (r) => ({ id: Number(r.id), name: r.name as string }))
    const wanted = new Set(names)
    for (const o of existing) if (!wanted.has(o.name)) yield* c.run(`DELETE FROM poll_options WHERE id = ?`, [o.id])
    const have = new Map(existing.map((o) => [o.name, o.id]))
    for (const [priority, name] of names.entries()) {
      const id = have.get(name)
      if (id === undefined) yield* c.run(`INSERT INTO poll_options (poll_id, name, priority) VALUES (?, ?, ?)`, [pollId, name, priority])
      else yield* c.run(`UPDATE poll_options SET priority = ? WHERE id = ?`, [priority, id])
    }
  })
})

type TallyRow = { poll_id: Id; poll_type: string; voters_count: number; cast_count: number; delegated_count: number; option_id: Id | null } & Omit<OptionTally, "option_id" | "voter_ids">

export const makeStancesRepo = (c: SqlClient): StancesRepo => {
  const { ids } = c.dialect
  const load = (where: string, params: Record<string, unknown>, order = "ORDER BY id") =>
    Effect.flatMap(c.all(`SELECT * FROM stances WHERE ${where} ${order}`, params, Stance.fromRow), (rows) =>
      rows.length === 0
        ? Effect.succeed([])
        : Effect.map(
          c.all(`SELECT stance_id, poll_option_id, score FROM stance_choices WHERE ${ids.has("stance_id", "ids")} ORDER BY poll_option_id`,
            { ids: ids.bind(rows.map((r) => r.id)) }, asRecord<ChoiceRow>()),
          (choices) => withChoices(rows, choices)
        ))
  const writeChoices = Effect.fnUntraced(function*(stanceId: Id, choices: ReadonlyMap<Id, number>) {
    yield* c.run(`DELETE FROM stance_choices WHERE stance_id = ?`, [stanceId])
    if (choices.size === 0) return
    // one statement for the ballot's choices (its text differs only by how many there are)
    yield* c.run(`INSERT INTO stance_choices (stance_id, poll_option_id, score) VALUES ${[...choices.keys()].map(() => "(?, ?, ?)").join(", ")}`,
      [...choices].flatMap(([optionId, score]) => [stanceId, optionId, score]))
  })
  /** The first few counted voters of each option (the voters a result names). */
  const firstVoters = (rows: ReadonlyArray<TallyRow>): Effect.Effect<ReadonlyMap<Id, ReadonlyArray<Id>>> => {
    const options = rows.filter((r) => r.option_id !== null && r.voter_count > 0)
    if (options.length === 0) return Effect.succeed(new Map())
    const counted = `FROM stance_choices sc JOIN stances st ON st.id = sc.stance_id
      WHERE sc.poll_option_id = o.id AND sc.counted = TRUE AND (sc.score > 0 OR o.meeting = 1) ORDER BY sc.stance_id LIMIT ${VOTER_NAMES}`
    const named = new Map<Id, Array<Id>>()
    const add = (option: Id, voter: Id) => {
      const list = named.get(option)
      if (list === undefined) named.set(option, [voter])
      else list.push(voter)
    }
    if (c.dialect.lateral) {
      // every option's in one statement
      return Effect.map(
        c.all(`SELECT o.id AS option_id, v.participant_id FROM (SELECT po.id, CASE WHEN p.poll_type = 'meeting' THEN 1 ELSE 0 END AS meeting
                 FROM poll_options po JOIN polls p ON p.id = po.poll_id WHERE ${ids.has("po.id", "ids")}) o
               CROSS JOIN LATERAL (SELECT st.participant_id ${counted}) v`, { ids: ids.bind(options.map((r) => r.option_id!)) }),
        (voters) => {
          for (const v of voters) add(Number(v.option_id), Number(v.participant_id))
          return named
        }
      )
    }
    // option by option, each through the counted-choices index
    return Effect.as(
      Effect.forEach(options, (r) =>
        Effect.map(
          c.all(`SELECT st.participant_id FROM stance_choices sc JOIN stances st ON st.id = sc.stance_id
                 WHERE sc.poll_option_id = @option AND sc.counted = TRUE AND (sc.score > 0 OR @meeting = 1) ORDER BY sc.stance_id LIMIT ${VOTER_NAMES}`,
            { option: r.option_id, meeting: columnValue(r.poll_type === "meeting") }, (v) => Number(v.participant_id)),
          (voters) => voters.forEach((v) => add(r.option_id!, v))
        ), { discard: true }),
      named
    )
  }
  return {
    byId: (id) => Effect.map(load("id = @id", { id }), (r) => r[0]),
    byIds: (list) => load(ids.has("id", "ids"), { ids: ids.bind(list) }),
    latestOf: (pollIds) => load(`${ids.has("poll_id", "ids")} AND latest = TRUE AND revoked_at IS NULL`, { ids: ids.bind(pollIds) }),
    tallies: Effect.fnUntraced(function*(pollIds) {
      const out = new Map<Id, { voters_count: number; cast_count: number; delegated_count: number; options: Array<OptionTally> }>()
      // one row per option, or one without an option for a poll that has none
      // ballots cast by delegates, counted once per poll through their partial index (nothing to read where nobody
      // delegates); a latest delegated ballot is always a cast one (withdrawn, it is replaced by an uncast one of the voter's own)
      const rows = yield* c.all(`SELECT p.id AS poll_id, p.poll_type, p.voters_count, p.cast_count, o.id AS option_id, o.total_score AS score,
          coalesce(d.n, 0) AS delegated_count, o.voter_count, o.yes_count AS yes, o.maybe_count AS maybe, o.no_count AS no
          FROM polls p LEFT JOIN poll_options o ON o.poll_id = p.id
          LEFT JOIN (SELECT s.poll_id, count(*) AS n FROM stances s WHERE ${ids.has("s.poll_id", "ids")} AND s.delegated_by > 0 AND s.latest = TRUE
            AND s.revoked_at IS NULL GROUP BY s.poll_id) d ON d.poll_id = p.id
          WHERE ${ids.has("p.id", "ids")} ORDER BY p.id, o.priority`, { ids: ids.bind(pollIds) }, asRecord<TallyRow>())
      const named = yield* firstVoters(rows)
      for (const { poll_id, poll_type: _, voters_count, cast_count, delegated_count, option_id, ...o } of rows) {
        let tally = out.get(poll_id)
        if (tally === undefined) out.set(poll_id, (tally = { voters_count, cast_count, delegated_count: Number(delegated_count), options: [] }))
        if (option_id === null) continue
        tally.options.push({ option_id, voter_ids: named.get(option_id) ?? [], ...o })
      }
      return out
    }),
    mineOf: (pollIds, userId) => load(c.dialect.ballotsOf("polls", "user"), { polls: ids.bind(pollIds), user: userId }),
    newestCast: (pollId, limit) =>
      load("poll_id = @poll AND latest = TRUE AND revoked_at IS NULL AND cast_at IS NOT NULL", { poll: pollId, limit }, "ORDER BY cast_at DESC, id DESC LIMIT @limit"),
    latestFor: (pollId, userId) => Effect.map(load("poll_id = @poll AND participant_id = @user AND latest = TRUE", { poll: pollId, user: userId }), (r) => r[0]),
    insert: Effect.fnUntraced(function*(st) {
      yield* c.run(`UPDATE stances SET latest = FALSE WHERE poll_id = ? AND participant_id = ? AND latest = TRUE`, [st.poll_id, st.participant_id])
      const inserted = yield* c.run<{ id: Id }>(
        `INSERT INTO stances (poll_id, participant_id, inviter_id, latest, cast_at, reason, reason_format, delegated_by, created_at, updated_at)
         VALUES (@poll_id, @participant_id, @inviter_id, TRUE, @cast_at, @reason, @reason_format, @delegated_by, @created_at, @created_at) RETURNING id`,
        Object.assign({}, st, { choices: undefined, delegated_by: st.delegated_by ?? null })
      )
      const id = Number(returned(inserted).id)
      yield* writeChoices(id, st.choices)
      // the choices in the order a read gives them (by option id), so the answer equals the next read's
      const choices = new Map([...st.choices].sort(([a], [b]) => a - b))
      return Object.assign({}, st, { choices, id, latest: true, revoked_at: null, delegated_by: st.delegated_by ?? null, updated_at: st.created_at })
    }),
    update: Effect.fnUntraced(function*(id, patch) {
      yield* c.run(`UPDATE stances SET cast_at = ?, reason = ?, reason_format = ?, updated_at = ? WHERE id = ?`,
        [patch.cast_at, patch.reason, patch.reason_format, patch.updated_at, id])
      yield* writeChoices(id, patch.choices)
    }),
    revoke: (id, at, revokerId) => Effect.asVoid(c.run(`UPDATE stances SET revoked_at = ?, revoker_id = ?, updated_at = ? WHERE id = ?`, [at, revokerId, at, id])),
    unrevoke: (id, at) => Effect.asVoid(c.run(`UPDATE stances SET revoked_at = NULL, revoker_id = NULL, updated_at = ? WHERE id = ?`, [at, id]))
  }
}

export const makeOutcomesRepo = (c: SqlClient): OutcomesRepo => {
  const { ids } = c.dialect
  return {
    byId: (id) => c.get(`SELECT * FROM outcomes WHERE id = ?`, [id], Outcome.fromRow),
    byIds: (list) => (list.length === 0 ? Effect.succeed([]) : c.all(`SELECT * FROM outcomes WHERE ${ids.has("id", "ids")}`, { ids: ids.bind(list) }, Outcome.fromRow)),
    latestOf: (pollIds) =>
      pollIds.length === 0 ? Effect.succeed([]) : c.all(`SELECT * FROM outcomes WHERE latest = TRUE AND ${ids.has("poll_id", "ids")}`, { ids: ids.bind(pollIds) }, Outcome.fromRow),
    insert: Effect.fnUntraced(function*(o) {
      yield* c.run(`UPDATE outcomes SET latest = FALSE WHERE poll_id = ?`, [o.poll_id])
      return Outcome.fromRow(returned(yield* c.run(
        `INSERT INTO outcomes (poll_id, author_id, statement, statement_format, poll_option_id, review_on, event_summary, event_location, latest, created_at, updated_at)
         VALUES (@poll_id, @author_id, @statement, @statement_format, @poll_option_id, @review_on, @event_summary, @event_location, TRUE, @created_at, @created_at) RETURNING *`,
        o
      )))
    }),
    update: (id, patch) => {
      const row = Outcome.toRow(patch)
      return Effect.asVoid(c.run(`UPDATE outcomes SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
    },
    reviewDue: (today) =>
      c.all(`SELECT o.* FROM outcomes o JOIN polls p ON p.id = o.poll_id
             WHERE o.review_sent_at IS NULL AND o.latest = TRUE AND o.review_on IS NOT NULL AND o.review_on <= ? AND p.discarded_at IS NULL`, [today], Outcome.fromRow)
  }
}

export const makeDelegationsRepo = (c: SqlClient): DelegationsRepo => ({
  activeOf: (groupId, delegatorId) =>
    c.get(`SELECT * FROM delegations WHERE group_id = ? AND delegator_id = ? AND revoked_at IS NULL`, [groupId, delegatorId], Delegation.fromRow),
  toDelegate: (groupId, delegateId) =>
    c.all(`SELECT * FROM delegations WHERE group_id = ? AND delegate_id = ? AND revoked_at IS NULL ORDER BY created_at, id`, [groupId, delegateId], Delegation.fromRow),
  activeIn: (groupId) => c.all(`SELECT * FROM delegations WHERE group_id = ? AND revoked_at IS NULL ORDER BY id`, [groupId], Delegation.fromRow),
  grant: (d) =>
    Effect.map(c.run(`INSERT INTO delegations (group_id, delegator_id, delegate_id, created_at) VALUES (@group_id, @delegator_id, @delegate_id, @created_at) RETURNING *`, d),
      (r) => Delegation.fromRow(returned(r))),
  revoke: (id, at, revokerId) => Effect.asVoid(c.run(`UPDATE delegations SET revoked_at = ?, revoker_id = ? WHERE id = ? AND revoked_at IS NULL`, [at, revokerId, id])),
  history: (groupId, limit) =>
    c.all(`SELECT * FROM delegations WHERE group_id = ? ORDER BY coalesce(revoked_at, created_at) DESC, id DESC LIMIT ?`, [groupId, limit], Delegation.fromRow)
})

export const makePollTemplatesRepo = (c: SqlClient): PollTemplatesRepo => ({
  inGroup: (groupId) => c.all(`SELECT * FROM poll_templates WHERE group_id = ? ORDER BY position, id`, [groupId], PollTemplate.fromRow),
  byId: (id) => c.get(`SELECT * FROM poll_templates WHERE id = ?`, [id], PollTemplate.fromRow),
  insert: (t) => Effect.map(insertRow(c, "poll_templates", PollTemplate.toRow({ ...t, updated_at: t.created_at })), (r) => PollTemplate.fromRow(returned(r))),
  update: (id, patch) => {
    const row = PollTemplate.toRow(patch)
    return Effect.asVoid(c.run(`UPDATE poll_templates SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
  }
})
