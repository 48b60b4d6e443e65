/**
 * Child process: the bare baseline for bench/votes.js. node:http + better-sqlite3 (same pragmas as convene's write
 * connection: WAL, synchronous = FULL, foreign keys) with hand-written SQL, answering the two benchmarked endpoints
 * with the same JSON as convene (votes.js asserts it):
 *
 *   POST /api/b2/stances   {"poll_id": …, "option_scores": {"agree": 1}}
 *   GET  /api/b2/polls/{id}
 *
 * A vote does the same database work as convene's `Stances.castVote`, in one BEGIN IMMEDIATE transaction:
 * bearer key → SHA-256 → user (users.api_key_hash); the poll and its thread; the voter's latest ballot; the
 * membership and group settings (may they vote); the options, and the ballot checked against them; the ballot cast
 * (cast_at, reason, updated_at) and its stance_choices replaced (or, for a changed vote, a new latest ballot); the
 * thread item (next sequence_id, under the poll's item, child_count bumped, position_key "00042" as convene's
 * sqlite/items.ts), the thread's items_count and activity; the webhook outbox row (webhook_events, with the same
 * message convene writes) and one webhook_deliveries row per subscribed chatbot. Then the answer: the poll document
 * (packages/http/src/api/b2/polls.ts `document`): the poll with its results over every ballot, its options with their
 * totals, the caller's ballot, the current outcome, the thread, the group with its counters and the people named
 * (caller, author, at most 50 voters per option). Results are read, as convene reads them, from the counters that
 * convene's triggers (migration 009) keep on poll_options and polls in every writing transaction, the baseline's
 * included; the percentages are rounded in JavaScript exactly as convene's `resultsFromTally`.
 *
 * Only what the benchmark needs: proposal polls (results in option order), not anonymous, not shuffled; voters are
 * group members (no guests, no public or parent-group visibility); no `reason`; no compact/exclude_types; no
 * `{"stance": {…}}` wrapper or `api_key` body field.
 */
import { bool, formatRanges, GROUP, mentions, openDatabase, parseRanges, readerStatements } from "./baseline-sql.js"
import { createHash } from "node:crypto"
import * as http from "node:http"

const db = openDatabase("votes-baseline.js", { writable: true })
const r = readerStatements(db)

/** Loomio's results cap (convene's `Polls.VOTER_NAMES`): at most this many voters named per option. */
const VOTER_NAMES = 50
const LIVE = `s.poll_id = @poll AND s.latest = 1 AND s.revoked_at IS NULL`

const TOPIC = `json_object('id', t.id, 'group_id', t.group_id, 'topicable_type', t.topicable_type, 'topicable_id', t.topicable_id,
  'private', ${bool("t.private")}, 'tags', json(t.tags), 'items_count', t.items_count, 'seen_by_count', t.seen_by_count, 'replies_count', max(t.items_count - 1, 0),
  'max_depth', t.max_depth, 'last_activity_at', t.last_activity_at, 'closed_at', t.closed_at, 'locked_at', t.closed_at,
  'closer_id', t.closer_id, 'pinned_at', NULL, 'created_at', t.created_at, 'updated_at', t.updated_at)`
const USER = `json_object('id', u.id, 'name', coalesce(u.name, u.username, 'Anonymous'), 'username', u.username,
  'country', u.country, 'bot', ${bool("u.bot")}, 'deactivated_at', u.deactivated_at)`

const q = {
  user: db.prepare(`SELECT id, name, username, deactivated_at FROM users WHERE api_key_hash = ?`),
  poll: db.prepare(`SELECT p.*, t.group_id, t.topicable_type, t.topicable_id, t.discarded_at AS topic_discarded_at
                    FROM polls p JOIN topics t ON t.id = p.topic_id WHERE p.id = ?`),
  pollIdByKey: db.prepare(`SELECT id FROM polls WHERE key = ?`).pluck(),
  group: db.prepare(`SELECT members_can_vote FROM groups WHERE id = ?`),
  membership: db.prepare(`SELECT admin FROM memberships WHERE group_id = ? AND user_id = ? AND revoked_at IS NULL`),
  ballot: db.prepare(`SELECT id, inviter_id, cast_at, revoked_at FROM stances WHERE poll_id = ? AND participant_id = ? AND latest = 1`),
  // with the results counters that convene's triggers keep on every write (migration 009)
  options: db.prepare(`SELECT id, poll_id, name, priority, total_score, voter_count FROM poll_options WHERE poll_id = ? ORDER BY priority`),
  // casting: the issued ballot, or (a changed vote) a new latest ballot
  cast: db.prepare(`UPDATE stances SET cast_at = @now, reason = NULL, reason_format = 'md', updated_at = @now WHERE id = @id`),
  supersede: db.prepare(`UPDATE stances SET latest = 0 WHERE poll_id = ? AND participant_id = ? AND latest = 1`),
  insertStance: db.prepare(`INSERT INTO stances (poll_id, participant_id, inviter_id, latest, cast_at, reason, reason_format, created_at, updated_at)
                            VALUES (@poll, @user, @inviter, 1, @now, NULL, 'md', @now, @now)`),
  deleteChoices: db.prepare(`DELETE FROM stance_choices WHERE stance_id = ?`),
  insertChoice: db.prepare(`INSERT INTO stance_choices (stance_id, poll_option_id, score) VALUES (?, ?, ?)`),
  // the thread item, under the poll's own item (or the thread's root item)
  itemOf: db.prepare(`SELECT id, depth, position_key FROM topic_items WHERE itemable_type = ? AND itemable_id = ? ORDER BY id LIMIT 1`),
  nextSequence: db.prepare(`SELECT coalesce(max(sequence_id), 0) + 1 FROM topic_items WHERE topic_id = ?`).pluck(),
  childCount: db.prepare(`UPDATE topic_items SET child_count = child_count + 1 WHERE id = ? RETURNING child_count`).pluck(),
  insertItem: db.prepare(`INSERT INTO topic_items (topic_id, kind, sequence_id, parent_id, depth, position, position_key, itemable_type, itemable_id, actor_id, created_at)
                          VALUES (@topic, @kind, @sequence, @parent, @depth, @position, @key, 'Stance', @stance, @actor, @now)`),
  bumpTopic: db.prepare(`UPDATE topics SET items_count = items_count + 1, last_activity_at = @now, updated_at = @now WHERE id = @id`),
  // the webhook outbox
  insertEvent: db.prepare(`INSERT INTO webhook_events (kind, group_id, actor_id, eventable_type, eventable_id, message, created_at)
                           VALUES (?, ?, ?, 'Stance', ?, ?, ?)`),
  subscribed: db.prepare(`SELECT id FROM chatbots WHERE group_id = ? AND EXISTS (SELECT 1 FROM json_each(event_kinds) WHERE value = ?) ORDER BY id`).pluck(),
  insertDelivery: db.prepare(`INSERT INTO webhook_deliveries (event_id, chatbot_id, next_attempt_at, created_at) VALUES (?, ?, ?, ?)`),
  // the poll document: the first voters of an option, in ballot order (index stance_choices_counted, migration 019)
  voterIds: db.prepare(`SELECT s.participant_id FROM stance_choices sc JOIN stances s ON s.id = sc.stance_id
                        WHERE sc.poll_option_id = ? AND sc.counted = 1 AND sc.score > 0 ORDER BY sc.stance_id LIMIT ${VOTER_NAMES}`).pluck(),
  mine: db.prepare(`SELECT * FROM stances s WHERE ${LIVE} AND s.participant_id = @user`),
  choices: db.prepare(`SELECT poll_option_id, score FROM stance_choices WHERE stance_id = ?`),
  // a record's files (decisions §14; none in this benchmark, but read as convene reads them)
  files: db.prepare(`SELECT a.id FROM attachments a JOIN blobs b ON b.id = a.blob_id WHERE a.record_type = ? AND a.record_id = ? ORDER BY a.position`),
  // ballots delegates' votes cast (decisions §15): counted as convene counts them
  delegated: db.prepare(`SELECT count(*) FROM stances WHERE poll_id = ? AND delegated_by > 0 AND latest = 1 AND revoked_at IS NULL`).pluck(),
  outcome: db.prepare(`SELECT * FROM outcomes WHERE poll_id = ? AND latest = 1`),
  discussionId: db.prepare(`SELECT id FROM discussions WHERE topic_id = ?`).pluck(),
  topicJson: db.prepare(`SELECT ${TOPIC} FROM topics t WHERE t.id = ?`).pluck(),
  groupJson: db.prepare(`SELECT ${GROUP} FROM groups g LEFT JOIN groups p ON p.id = g.parent_id WHERE g.id = ?`).pluck(),
  users: db.prepare(`SELECT coalesce(json_group_array(json(CASE WHEN u.id = @caller THEN json_set(${USER}, '$.email', u.email) ELSE ${USER} END)), '[]')
                     FROM (SELECT * FROM users WHERE id IN (SELECT value FROM json_each(@ids)) ORDER BY id) u`).pluck()
}

class HttpError extends Error {
  constructor(status, message) {
    super(message)
    this.status = status
  }
}

const pct = (part, whole) => (whole === 0 ? 0 : Math.round((part / whole) * 10000) / 100)
const segment = (position) => String(position).padStart(5, "0")
const displayName = (u) => u.name ?? u.username ?? "Anonymous"
const tf = (v) => v === 1

/** A poll the caller may see: kept, and the caller is a member of its group or holds a live ballot. */
const visiblePoll = (user, id) => {
  const poll = q.poll.get(id)
  if (poll === undefined || poll.discarded_at !== null) throw new HttpError(404, `Poll ${id} not found`)
  const membership = q.membership.get(poll.group_id, user.id)
  const ballot = q.ballot.get(poll.id, user.id)
  const member = membership !== undefined && poll.topic_discarded_at === null
  if (!member && (ballot === undefined || ballot.revoked_at !== null)) throw new HttpError(404, `Poll ${id} not found`)
  return { poll, membership, ballot }
}

/** The poll document for `caller` (the JSON of packages/http/src/api/b2/polls.ts `document`). */
const pollDocument = (caller, poll) => {
  const options = q.options.all(poll.id)
  const { voters_count: voters, cast_count: cast } = poll
  const totalScore = options.reduce((a, o) => a + o.total_score, 0)
  const mine = q.mine.get({ poll: poll.id, user: caller.id })
  const closed = poll.closed_at !== null
  const visible = poll.hide_results === "off" || closed || (poll.hide_results === "until_vote" && mine?.cast_at != null)
  const userIds = new Set([caller.id, poll.author_id])
  const results = options.map((o, i) => {
    const t = { score: o.total_score, voters: o.voter_count }
    const ids = t.voters === 0 ? [] : q.voterIds.all(o.id)
    if (visible) for (const id of ids) userIds.add(id)
    return {
      id: o.id, name: o.name, priority: o.priority, score: t.score, voter_count: t.voters,
      average: t.voters === 0 ? 0 : Math.round((t.score / t.voters) * 100) / 100,
      score_percent: pct(t.score, totalScore), votes_cast_percent: pct(t.voters, cast), voter_percent: pct(t.voters, voters),
      yes: 0, maybe: 0, no: 0, voter_ids: ids, rank: i + 1
    }
  })
  const outcome = q.outcome.get(poll.id)
  if (outcome !== undefined) userIds.add(outcome.author_id)
  const pollJson = {
    id: poll.id, key: poll.key, topic_id: poll.topic_id,
    discussion_id: poll.topicable_type === "Discussion" ? q.discussionId.get(poll.topic_id) ?? null : null,
    group_id: poll.group_id, author_id: poll.author_id, title: poll.title, details: poll.details, details_format: poll.details_format,
    poll_type: poll.poll_type, closing_at: poll.closing_at, opened_at: poll.opened_at, closed_at: poll.closed_at,
    discarded_at: poll.discarded_at, discarded_by: poll.discarded_by, specified_voters_only: tf(poll.specified_voters_only),
    hide_results: poll.hide_results, shuffle_options: tf(poll.shuffle_options), anonymous: tf(poll.anonymous),
    notify_on_closing_soon: poll.notify_on_closing_soon, stance_reason_required: poll.stance_reason_required,
    allow_delegated_votes: tf(poll.allow_delegated_votes), min_score: poll.min_score, max_score: poll.max_score,
    minimum_stance_choices: poll.minimum_stance_choices, maximum_stance_choices: poll.maximum_stance_choices,
    dots_per_person: poll.dots_per_person, can_respond_maybe: tf(poll.can_respond_maybe),
    voters_count: voters, decided_voters_count: cast, delegated_voters_count: q.delegated.get(poll.id), undecided_voters_count: voters - cast,
    poll_option_ids: options.map((o) => o.id), poll_option_names: options.map((o) => o.name),
    stance_counts: visible ? results.map((r) => r.score) : null,
    stance_data: visible ? Object.fromEntries(results.map((r) => [r.name, r.score])) : null,
    cast_stances_pct: voters === 0 ? 0 : Math.round((cast / voters) * 100),
    mentioned_usernames: poll.details_format === "md" && poll.discarded_at === null ? mentions(poll.details) : [],
    results_visible: visible, results: visible ? results : null,
    my_stance_id: mine?.id ?? null, current_outcome_id: outcome?.id ?? null, created_at: poll.created_at, updated_at: poll.updated_at,
    attachments: q.files.all("Poll", poll.id).map(() => { throw new Error("no files in this benchmark") })
  }
  const optionJson = options.map((o, i) => {
    const r = results[i]
    return {
      id: o.id, poll_id: o.poll_id, name: o.name, priority: o.priority,
      ...(visible
        ? {
          total_score: r.score, voter_count: r.voter_count, average_score: r.average, score_percent: r.score_percent,
          voter_percent: r.voter_percent, votes_cast_percent: r.votes_cast_percent, rank: r.rank
        }
        : {})
    }
  })
  const stances = []
  if (mine !== undefined) {
    const choices = q.choices.all(mine.id)
    const names = new Map(options.map((o) => [o.id, o.name]))
    stances.push({
      id: mine.id, poll_id: mine.poll_id, participant_id: mine.participant_id, latest: true, cast_at: mine.cast_at,
      reason: mine.reason, reason_format: mine.reason_format,
      mentioned_usernames: mine.reason_format === "md" && mine.reason !== null ? mentions(mine.reason) : [],
      inviter_id: poll.anonymous === 1 ? null : mine.inviter_id,
      delegated_by: poll.anonymous === 1 ? null : mine.delegated_by,
      option_scores: Object.fromEntries(choices.filter((c) => names.has(c.poll_option_id)).map((c) => [names.get(c.poll_option_id), c.score])),
      stance_choices: choices, revoked_at: mine.revoked_at, created_at: mine.created_at, updated_at: mine.updated_at
    })
  }
  const outcomes = outcome === undefined ? [] : [{
    id: outcome.id, poll_id: outcome.poll_id, group_id: poll.group_id, author_id: outcome.author_id, statement: outcome.statement,
    mentioned_usernames: outcome.statement_format === "md" ? mentions(outcome.statement) : [],
    statement_format: outcome.statement_format, poll_option_id: outcome.poll_option_id, review_on: outcome.review_on,
    latest: true, created_at: outcome.created_at, updated_at: outcome.updated_at,
    attachments: q.files.all("Outcome", outcome.id).map(() => { throw new Error("no files in this benchmark") })
  }]
  return `{"polls":[${JSON.stringify(pollJson)}],"poll_options":${JSON.stringify(optionJson)},"stances":${JSON.stringify(stances)},` +
    `"outcomes":${JSON.stringify(outcomes)},"topics":[${q.topicJson.get(poll.topic_id)}],"groups":[${q.groupJson.get(poll.group_id)}],` +
    `"users":${q.users.get({ caller: caller.id, ids: JSON.stringify([...userIds]) })},"meta":{"root":"polls"}}`
}

const KEYS = new Set(["poll_id", "option_scores", "reason", "reason_format"])
const isInt = (v) => Number.isInteger(v)

/** POST /api/b2/stances, all in one transaction (better-sqlite3: BEGIN IMMEDIATE … COMMIT). */
const vote = db.transaction((user, input) => {
  const now = new Date().toISOString()
  const { poll, membership, ballot } = visiblePoll(user, input.poll_id)
  if (poll.opened_at === null && poll.closed_at === null) throw new HttpError(422, "the poll is a draft: voting has not opened")
  if (poll.closed_at !== null) throw new HttpError(422, "the poll is closed")
  const liveBallot = ballot !== undefined && ballot.revoked_at === null
  const mayVote = liveBallot ||
    (!tf(poll.specified_voters_only) && membership !== undefined && (q.group.get(poll.group_id).members_can_vote === 1 || membership.admin === 1))
  if (!mayVote) throw new HttpError(403, "You may not vote in this poll")
  if (poll.poll_type !== "proposal") throw new HttpError(422, "the baseline only takes proposal votes")
  const options = q.options.all(poll.id)
  const entries = Object.entries(input.option_scores)
  const byName = new Map(options.map((o) => [o.name, o.id]))
  if (entries.some(([name]) => !byName.has(name))) throw new HttpError(422, "unknown option")
  if (entries.length !== 1 || entries[0][1] !== 1) throw new HttpError(422, "choose exactly one option, with score 1")

  const first = !liveBallot || ballot.cast_at === null
  let stanceId
  if (liveBallot && ballot.cast_at === null) {
    stanceId = ballot.id
    q.cast.run({ id: stanceId, now })
    q.deleteChoices.run(stanceId)
  } else {
    q.supersede.run(poll.id, user.id)
    stanceId = Number(q.insertStance.run({ poll: poll.id, user: user.id, inviter: ballot?.inviter_id ?? null, now }).lastInsertRowid)
  }
  for (const [name, score] of entries) q.insertChoice.run(stanceId, byName.get(name), score)

  const kind = first ? "stance_created" : "stance_updated"
  const parent = q.itemOf.get("Poll", poll.id) ?? q.itemOf.get(poll.topicable_type, poll.topicable_id)
  const position = q.childCount.get(parent.id)
  const sequence = q.nextSequence.get(poll.topic_id)
  q.insertItem.run({
    topic: poll.topic_id, kind, sequence, parent: parent.id, depth: parent.depth + 1, position,
    key: parent.position_key === null ? segment(position) : `${parent.position_key}-${segment(position)}`,
    stance: stanceId, actor: tf(poll.anonymous) ? null : user.id, now
  })
  q.bumpTopic.run({ id: poll.topic_id, now })
  // writing is reading (an anonymous vote's item names nobody, and is read by nobody), and the live pages hear of it
  if (!tf(poll.anonymous)) {
    const reader = r.reader.get(poll.topic_id, user.id)
    const ranges = formatRanges(parseRanges([reader?.read_ranges ?? "", String(sequence)].filter((x) => x !== "").join(",")))
    if (reader === undefined || reader.last_read_at === null || ranges !== (reader.read_ranges ?? "")) {
      r.markRead.run({ topic: poll.topic_id, user: user.id, at: now, ranges, previous: reader?.read_ranges ?? "" })
    }
  }
  r.live.run(poll.group_id, poll.topic_id, now)

  const named = !tf(poll.anonymous)
  const chosen = options.filter((o) => (input.option_scores[o.name] ?? 0) > 0).map((o) => o.name).join(", ")
  const message = JSON.stringify({
    headline: `${named ? displayName(user) : "Someone"} ${first ? "voted" : "changed their vote"}`,
    title: poll.title,
    path: `/p/${poll.key}`,
    // an anonymous ballot's choice is not news; hidden results stay hidden
    body: poll.hide_results === "off" && named ? chosen || null : null,
    recipient_message: null
  })
  const eventId = Number(q.insertEvent.run(kind, poll.group_id, named ? user.id : null, stanceId, message, now).lastInsertRowid)
  for (const bot of q.subscribed.all(poll.group_id, kind)) q.insertDelivery.run(eventId, bot, now, now)

  return pollDocument(user, q.poll.get(poll.id))
})

const readBody = (req) =>
  new Promise((resolve, reject) => {
    const chunks = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const handle = async (req, res) => {
  const header = req.headers.authorization ?? ""
  const hash = createHash("sha256").update(header.startsWith("Bearer ") ? header.slice(7).trim() : "", "utf8").digest("hex")
  const user = q.user.get(hash)
  if (user === undefined || user.deactivated_at !== null) throw new HttpError(403, "Invalid API key")
  const url = new URL(req.url, "http://x")
  const show = /^\/api\/b2\/polls\/([^/]+)$/.exec(url.pathname)
  if (req.method === "POST" && url.pathname === "/api/b2/stances") {
    let input
    try {
      input = JSON.parse(await readBody(req))
    } catch {
      throw new HttpError(400, "invalid JSON")
    }
    if (typeof input !== "object" || input === null || Object.keys(input).some((k) => !KEYS.has(k))) throw new HttpError(400, "unexpected field")
    if (!isInt(input.poll_id)) throw new HttpError(400, "poll_id: must be an integer")
    const scores = input.option_scores
    if (typeof scores !== "object" || scores === null || Array.isArray(scores) || !Object.values(scores).every(isInt)) {
      throw new HttpError(400, "option_scores: must be an object of option names to integer scores")
    }
    if (input.reason != null) throw new HttpError(400, "the baseline takes no reason")
    return vote.immediate(user, input)
  }
  if (req.method === "GET" && show !== null) {
    const ref = decodeURIComponent(show[1])
    const id = /^[0-9]{1,15}$/.test(ref) ? Number(ref) : q.pollIdByKey.get(ref)
    if (id === undefined) throw new HttpError(404, `Poll ${ref} not found`)
    return pollDocument(user, visiblePoll(user, id).poll)
  }
  throw new HttpError(404, "Not found")
}

const server = http.createServer((req, res) => {
  handle(req, res).then(
    (body) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      res.end(body)
    },
    (e) => {
      if (!(e instanceof HttpError)) console.error(e)
      const body = JSON.stringify({ error: e instanceof HttpError ? e.message : "Internal error" })
      res.writeHead(e instanceof HttpError ? e.status : 500, { "content-type": "application/json" })
      res.end(body)
    }
  )
})
server.listen(0, "127.0.0.1", () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
const stop = () => server.close(() => (db.close(), process.exit(0)))
process.on("message", (m) => m === "stop" && stop())
process.on("disconnect", stop)
