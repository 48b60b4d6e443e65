import { Effect } from "effect"
import type { PollOption } from "../domain/polls.js"
import type { Id } from "../domain/records.js"
import { type OptionTally, VOTER_NAMES } from "../rules/pollTypes.js"
import type { OutcomesRepo, PollOptionsRepo, PollsRepo, PollStatus, StancesRepo } from "../ports/polls.js"
import type { Runner, Stmt } from "./db.js"
import { type ChoiceRow, pollsInGroupSql, SELECT_POLL, type StanceRow, toOutcome, toPoll, withChoices } from "../sql/records.js"
import { fromBools, placeholders, setClause } from "../sql/rows.js"
import { params as scopeParams, where as scopeWhere } from "./topics.js"

const one = (row: unknown) => (row === undefined ? undefined : toPoll(row))

const inGroupSql = (status: PollStatus) => pollsInGroupSql(status, scopeWhere)

export const makePollsRepo = (run: Runner): PollsRepo => ({
  byId: (id) => run.read((_, s) => one(s(`${SELECT_POLL} WHERE p.id = ?`).get(id))),
  byKey: (key) => run.read((_, s) => one(s(`${SELECT_POLL} WHERE p.key = ?`).get(key))),
  byIds: (ids) =>
    ids.length === 0
      ? run.read(() => [])
      : run.read((_, s) => s(`${SELECT_POLL} WHERE p.id IN (${placeholders(ids.length)}) ORDER BY p.id`).all(...ids).map(toPoll)),
  ofTopics: (topicIds) =>
    topicIds.length === 0
      ? run.read(() => [])
      : run.read((_, s) =>
        s(`${SELECT_POLL} WHERE p.topic_id IN (${placeholders(topicIds.length)}) AND p.discarded_at IS NULL ORDER BY p.id`)
          .all(...topicIds).map(toPoll)),
  inGroup: (scope, groupId, status, page) =>
    run.read((_, s) =>
      s(`SELECT p.*, t.group_id AS group_id ${inGroupSql(status)} ORDER BY p.created_at DESC, p.id DESC LIMIT @limit OFFSET @offset`)
        .all({ ...scopeParams(scope, { groupId }), limit: page.limit, offset: page.offset }).map(toPoll)),
  countInGroup: (scope, groupId, status) =>
    run.read((_, s) => (s(`SELECT count(*) AS n ${inGroupSql(status)}`).get(scopeParams(scope, { groupId })) as { n: number }).n),
  insert: (p) =>
    run.write((_, s) => {
      const row = fromBools({ ...p, updated_at: p.created_at })
      const cols = Object.keys(row)
      const info = s(`INSERT INTO polls (${cols.join(", ")}) VALUES (${cols.map((c) => "@" + c).join(", ")})`).run(row)
      return toPoll(s(`${SELECT_POLL} WHERE p.id = ?`).get(info.lastInsertRowid))
    }),
  update: (id, patch) =>
    run.write((db) => {
      const row = fromBools(patch)
      db.prepare(`UPDATE polls SET ${setClause(row)} WHERE id = @id`).run({ ...row, id })
    }),
  openInGroup: (groupId) =>
    run.read((_, s) =>
      s(`${SELECT_POLL} WHERE t.group_id = ? AND p.opened_at IS NOT NULL AND p.closed_at IS NULL AND p.discarded_at IS NULL ORDER BY p.id`)
        .all(groupId).map(toPoll)),
  lapsed: (now) =>
    run.read((_, s) =>
      s(`${SELECT_POLL} WHERE p.closed_at IS NULL AND p.opened_at IS NOT NULL AND p.discarded_at IS NULL AND p.closing_at <= ? ORDER BY p.closing_at`)
        .all(now).map(toPoll)),
  closingSoon: (now, until) =>
    run.read((_, s) =>
      s(`${SELECT_POLL} WHERE p.closed_at IS NULL AND p.opened_at IS NOT NULL AND p.discarded_at IS NULL
         AND p.closing_soon_sent_at IS NULL AND p.closing_at > ? AND p.closing_at <= ? ORDER BY p.closing_at`)
        .all(now, until).map(toPoll))
})

export const makePollOptionsRepo = (run: Runner): PollOptionsRepo => ({
  ofPolls: (ids) =>
    ids.length === 0
      ? run.read(() => [])
      : run.read((_, s) =>
        s(`SELECT id, poll_id, name, priority FROM poll_options WHERE poll_id IN (${placeholders(ids.length)}) ORDER BY poll_id, priority`)
          .all(...ids) as Array<PollOption>),
  replace: (pollId, names) =>
    run.write((_, s) => {
      const existing = s(`SELECT id, name FROM poll_options WHERE poll_id = ?`).all(pollId) as Array<{ id: Id; name: string }>
      const wanted = new Set(names)
      for (const o of existing) if (!wanted.has(o.name)) s(`DELETE FROM poll_options WHERE id = ?`).run(o.id)
      const have = new Map(existing.map((o) => [o.name, o.id]))
      names.forEach((name, priority) => {
        const id = have.get(name)
        if (id === undefined) s(`INSERT INTO poll_options (poll_id, name, priority) VALUES (?, ?, ?)`).run(pollId, name, priority)
        else s(`UPDATE poll_options SET priority = ? WHERE id = ?`).run(priority, id)
      })
    })
})

export const makeStancesRepo = (run: Runner): StancesRepo => {
  const load = (where: string, ...args: Array<unknown>) =>
    run.read((_, s) => {
      const rows = s(`SELECT * FROM stances WHERE ${where} ORDER BY id`).all(...args) as Array<StanceRow>
      if (rows.length === 0) return []
      const choices = s(`SELECT stance_id, poll_option_id, score FROM stance_choices WHERE stance_id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(rows.map((r) => r.id))) as Array<ChoiceRow>
      return withChoices(rows, choices)
    })
  const writeChoices = (s: Stmt, stanceId: Id, choices: ReadonlyMap<Id, number>) => {
    s(`DELETE FROM stance_choices WHERE stance_id = ?`).run(stanceId)
    for (const [optionId, score] of choices) {
      s(`INSERT INTO stance_choices (stance_id, poll_option_id, score) VALUES (?, ?, ?)`).run(stanceId, optionId, score)
    }
  }
  return {
    byId: (id) => Effect.map(load("id = ?", id), (r) => r[0]),
    byIds: (ids) => load("id IN (SELECT value FROM json_each(?))", JSON.stringify(ids)),
    latestOf: (pollIds) => load("poll_id IN (SELECT value FROM json_each(?)) AND latest = 1 AND revoked_at IS NULL", JSON.stringify(pollIds)),
    tallies: (pollIds) =>
      run.read((_, s) => {
        // counters kept by triggers (migration 009); the named voters are the first few live ones of each option
        const ids = JSON.stringify(pollIds)
        const out = new Map<Id, { voters_count: number; cast_count: number; options: Array<OptionTally> }>()
        // only counted choices (migration 019): replaced ballots' choices are never walked
        const names = s(`SELECT st.participant_id FROM stance_choices sc JOIN stances st ON st.id = sc.stance_id
          WHERE sc.poll_option_id = ? AND sc.counted = 1 AND (sc.score > 0 OR ?) ORDER BY sc.stance_id LIMIT ${VOTER_NAMES}`).pluck()
        // one row per option, or one without an option for a poll that has none
        const rows = s(`SELECT p.id AS poll_id, p.poll_type, p.voters_count, p.cast_count, o.id AS option_id, o.total_score AS score,
          o.voter_count, o.yes_count AS yes, o.maybe_count AS maybe, o.no_count AS no
          FROM polls p LEFT JOIN poll_options o ON o.poll_id = p.id
          WHERE p.id IN (SELECT value FROM json_each(?)) ORDER BY p.id, o.priority`)
          .all(ids) as Array<
            { poll_id: Id; poll_type: string; voters_count: number; cast_count: number; option_id: Id | null } & Omit<OptionTally, "option_id" | "voter_ids">
          >
        for (const { poll_id, poll_type, voters_count, cast_count, option_id, ...o } of rows) {
          let tally = out.get(poll_id)
          if (tally === undefined) out.set(poll_id, (tally = { voters_count, cast_count, options: [] }))
          if (option_id === null) continue
          const voter_ids = o.voter_count === 0 ? [] : (names.all(option_id, poll_type === "meeting" ? 1 : 0) as Array<Id>)
          tally.options.push({ ...o, option_id, voter_ids })
        }
        return out
      }),
    // poll by poll through the (poll, participant) index: asked as one IN list, SQLite would scan every ballot
    // the user holds in any poll (bench/growth.js: a poll's document 0.65 as fast at ten times the ballots)
    mineOf: (pollIds, userId) =>
      load(
        `id IN (SELECT s.id FROM json_each(?) j CROSS JOIN stances s ON s.poll_id = j.value
                WHERE s.participant_id = ? AND s.latest = 1 AND s.revoked_at IS NULL)`,
        JSON.stringify(pollIds),
        userId
      ),
    latestFor: (pollId, userId) => Effect.map(load("poll_id = ? AND participant_id = ? AND latest = 1", pollId, userId), (r) => r[0]),
    insert: (st) =>
      run.write((_, s) => {
        s(`UPDATE stances SET latest = 0 WHERE poll_id = ? AND participant_id = ? AND latest = 1`).run(st.poll_id, st.participant_id)
        const info = s(
          `INSERT INTO stances (poll_id, participant_id, inviter_id, latest, cast_at, reason, reason_format, created_at, updated_at)
           VALUES (@poll_id, @participant_id, @inviter_id, 1, @cast_at, @reason, @reason_format, @created_at, @created_at)`
        ).run({ ...st, choices: undefined })
        const id = Number(info.lastInsertRowid)
        writeChoices(s, id, st.choices)
        // the choices in the order a read gives them (by option id), so the answer equals the next read's
        const choices = new Map([...st.choices].sort(([a], [b]) => a - b))
        return { ...st, choices, id, latest: true, revoked_at: null, updated_at: st.created_at }
      }),
    update: (id, patch) =>
      run.write((_, s) => {
        s(`UPDATE stances SET cast_at = ?, reason = ?, reason_format = ?, updated_at = ? WHERE id = ?`)
          .run(patch.cast_at, patch.reason, patch.reason_format, patch.updated_at, id)
        writeChoices(s, id, patch.choices)
      }),
    revoke: (id, at, revokerId) =>
      run.write((_, s) => void s(`UPDATE stances SET revoked_at = ?, revoker_id = ?, updated_at = ? WHERE id = ?`).run(at, revokerId, at, id)),
    unrevoke: (id, at) =>
      run.write((_, s) => void s(`UPDATE stances SET revoked_at = NULL, revoker_id = NULL, updated_at = ? WHERE id = ?`).run(at, id))
  }
}


export const makeOutcomesRepo = (run: Runner): OutcomesRepo => ({
  byId: (id) => run.read((_, s) => {
    const r = s(`SELECT * FROM outcomes WHERE id = ?`).get(id)
    return r === undefined ? undefined : toOutcome(r)
  }),
  byIds: (ids) =>
    ids.length === 0 ? run.read(() => []) : run.read((_, s) => s(`SELECT * FROM outcomes WHERE id IN (${placeholders(ids.length)})`).all(...ids).map(toOutcome)),
  latestOf: (pollIds) =>
    pollIds.length === 0
      ? run.read(() => [])
      : run.read((_, s) => s(`SELECT * FROM outcomes WHERE latest = 1 AND poll_id IN (${placeholders(pollIds.length)})`).all(...pollIds).map(toOutcome)),
  insert: (o) =>
    run.write((_, s) => {
      s(`UPDATE outcomes SET latest = 0 WHERE poll_id = ?`).run(o.poll_id)
      const info = s(
        `INSERT INTO outcomes (poll_id, author_id, statement, statement_format, poll_option_id, review_on, latest, created_at, updated_at)
         VALUES (@poll_id, @author_id, @statement, @statement_format, @poll_option_id, @review_on, 1, @created_at, @created_at)`
      ).run(o)
      return toOutcome(s(`SELECT * FROM outcomes WHERE id = ?`).get(info.lastInsertRowid))
    }),
  update: (id, patch) =>
    run.write((db) => {
      const row = fromBools(patch)
      db.prepare(`UPDATE outcomes SET ${setClause(row)} WHERE id = @id`).run({ ...row, id })
    }),
  reviewDue: (today) =>
    run.read((_, s) =>
      s(`SELECT o.* FROM outcomes o JOIN polls p ON p.id = o.poll_id
         WHERE o.review_sent_at IS NULL AND o.latest = 1 AND o.review_on IS NOT NULL AND o.review_on <= ? AND p.discarded_at IS NULL`)
        .all(today).map(toOutcome))
})
