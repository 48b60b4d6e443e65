/**
 * Writes side by side on PostgreSQL (the second pass only: CONVENE_TEST_PG): two `convene serve` processes, 32
 * writers each, commenting, replying, voting (and changing votes), inviting and starting threads, on shared and on
 * separate threads and polls, while polls close under the scheduler. Afterwards the database is recounted: every
 * thread's sequence ids are gapless and unique, one latest ballot per voter, every counter equals a recount,
 * every scheduled job ran once, every webhook and mail went once, and no request answered 5xx. Then again with
 * one server killed (SIGKILL) in the middle: every acknowledged write is there and the same invariants hold.
 */
import { openConvene } from "@convene/core"
import got, { type Got } from "got"
import t, { type Test } from "tap"
import { openSql, PG, type ServeProcess, spawnServe, tempDbFile, future } from "./helpers.js"
import { startReceiver } from "./receiver.js"
import { startSmtp } from "./smtp.js"

if (PG === undefined) throw new Error("concurrent-writes.test runs in the PostgreSQL pass (CONVENE_TEST_PG)")
t.setTimeout(240_000)

const WRITERS = 32
const ROUNDS = 5
const MEMBERS = 8
const THREADS = 6
const POLLS = 4

const client = (s: ServeProcess, key: string): Got =>
  got.extend({ prefixUrl: s.url, headers: { authorization: `Bearer ${key}` }, responseType: "json", throwHttpErrors: false, retry: { limit: 0 } })

type Sql = Awaited<ReturnType<typeof openSql>>["sql"]

/** A database with a group of MEMBERS accepted members (each with a key); the first is its admin. */
const seeded = async () => {
  const { filename } = tempDbFile()
  const convene = await openConvene({ database: filename })
  try {
    const people = []
    for (let i = 0; i < MEMBERS; i++) people.push(await convene.users.create({ email: `member${i}@example.org`, name: `Member ${i}`, is_admin: i === 0 }))
    const { group } = await convene.groups.create({ name: "Board", owner: people[0]!.user })
    for (const p of people.slice(1)) await convene.members.add({ group, user: p.user })
    return { filename, group, keys: people.map((p) => p.apiKey) }
  } finally {
    await convene.close()
  }
}

/** Threads and polls to write to: the first of each is shared by every writer, the others split among them. */
/** `closingSoon`: when the last poll closes, taken as it is created (setting up may itself take seconds on a busy machine). */
const stage = async (api: Got, groupId: number, closingSoon: () => string) => {
  const threads: Array<number> = []
  for (let i = 0; i < THREADS; i++) {
    const r = await api.post("api/b2/discussions", { json: { group_id: groupId, title: `Thread ${i}` } })
    threads.push((r.body as any).discussions[0].id)
  }
  const polls: Array<number> = []
  for (let i = 0; i < POLLS; i++) {
    // proposals in the first thread (its items interleave with the comments), the last one closing during the run
    const r = await api.post("api/b2/polls", {
      json: { discussion_id: threads[0], title: `Poll ${i}`, poll_type: "proposal", closing_at: i === POLLS - 1 ? closingSoon() : future(24 * 365) }
    })
    if (r.statusCode !== 200) throw new Error(`a poll to write to was refused: ${r.statusCode} ${JSON.stringify(r.body)}`)
    polls.push((r.body as any).polls[0].id)
  }
  return { threads, polls }
}

interface Done {
  readonly statuses: Array<number>
  /** comments acknowledged (200) by a server, by body */
  readonly comments: Array<string>
}

/** One writer's rounds: each a comment (shared or own thread, sometimes a reply), a vote, and now and then more. */
const writer = async (api: Got, admin: Got, id: string, n: number, threads: Array<number>, polls: Array<number>, groupId: number, done: Done) => {
  let last: number | undefined
  for (let round = 0; round < ROUNDS; round++) {
    const thread = round % 2 === 0 ? threads[0]! : threads[1 + (n % (THREADS - 1))]!
    const body = `${id} round ${round}`
    // the last round's comment (in the shared thread) answers this writer's first one there
    const reply = round === ROUNDS - 1 && last !== undefined ? { parent_id: last } : {}
    const c = await api.post("api/b2/comments", { json: { discussion_id: thread, body, ...reply } })
    done.statuses.push(c.statusCode)
    if (c.statusCode === 200) {
      done.comments.push(body)
      if (thread === threads[0] && last === undefined) last = (c.body as any).comments[0].id
    }
    const poll = polls[(n + round) % polls.length]!
    const v = await api.post("api/b2/stances", { json: { poll_id: poll, option_scores: { [["agree", "abstain", "disagree"][round % 3]!]: 1 } } })
    done.statuses.push(v.statusCode)
    if (round === 2 && n % 4 === 0) {
      done.statuses.push((await admin.post("api/b2/memberships", { json: { group_id: groupId, emails: [`${id}@example.org`] } })).statusCode)
    }
    if (round === 1 && n % 8 === 0) {
      done.statuses.push((await api.post("api/b2/discussions", { json: { group_id: groupId, title: `By ${id}` } })).statusCode)
    }
  }
}

/** What the database must say after any run, whatever interleaved: recounted, not trusted. */
const invariants = async (t: Test, sql: Sql) => {
  const gaps = await sql<{ topic_id: number; n: number; top: number; distinct_ids: number }>(
    `SELECT topic_id, count(*)::int AS n, max(sequence_id)::int AS top, count(DISTINCT sequence_id)::int AS distinct_ids
       FROM topic_items WHERE sequence_id > 0 GROUP BY topic_id`)
  t.ok(gaps.length >= THREADS, "items in every thread")
  t.same(gaps.filter((g) => g.n !== g.top || g.n !== g.distinct_ids), [], "every thread's sequence ids are 1..n, gapless and unique")
  t.same(await sql(`SELECT t.id FROM topics t WHERE t.items_count <> (SELECT count(*) FROM topic_items i WHERE i.topic_id = t.id)`), [],
    "every thread's item count equals a recount")
  t.same(await sql(`SELECT i.id FROM topic_items i WHERE i.child_count <> (SELECT count(*) FROM topic_items c WHERE c.parent_id = i.id)`), [],
    "every item's child count equals a recount")
  t.same(await sql(`SELECT poll_id, participant_id FROM stances WHERE latest = TRUE GROUP BY poll_id, participant_id HAVING count(*) > 1`), [],
    "one latest ballot per voter")
  t.same(await sql(`SELECT poll_id, participant_id FROM stances GROUP BY poll_id, participant_id HAVING NOT bool_or(latest)`), [],
    "every voter has a latest ballot")
  t.same(await sql(`SELECT p.id FROM polls p WHERE
      p.voters_count <> (SELECT count(*) FROM stances s WHERE s.poll_id = p.id AND s.latest = TRUE AND s.revoked_at IS NULL)
      OR p.cast_count <> (SELECT count(*) FROM stances s WHERE s.poll_id = p.id AND s.latest = TRUE AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL)`), [],
    "every poll's voter counts equal a recount")
  t.same(await sql(`SELECT o.id FROM poll_options o WHERE
      o.total_score <> (SELECT coalesce(sum(c.score), 0) FROM stance_choices c JOIN stances s ON s.id = c.stance_id
                          WHERE c.poll_option_id = o.id AND s.latest = TRUE AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL)
      OR o.voter_count <> (SELECT count(*) FROM stance_choices c JOIN stances s ON s.id = c.stance_id
                          WHERE c.poll_option_id = o.id AND c.score > 0 AND s.latest = TRUE AND s.revoked_at IS NULL AND s.cast_at IS NOT NULL)`), [],
    "every option's score and voters equal a recount")
  t.same(await sql(`SELECT g.id FROM groups g WHERE
      g.memberships_count <> (SELECT count(*) FROM memberships m WHERE m.group_id = g.id AND m.revoked_at IS NULL)
      OR g.discussions_count <> (SELECT count(*) FROM topics x WHERE x.group_id = g.id AND x.topicable_type = 'Discussion' AND x.discarded_at IS NULL)
      OR g.polls_count <> (SELECT count(*) FROM polls p JOIN topics x ON x.id = p.topic_id WHERE x.group_id = g.id AND p.discarded_at IS NULL)`), [],
    "every group's counters equal a recount")
  t.same(await sql(`SELECT eventable_id FROM webhook_events WHERE kind = 'poll_expired' GROUP BY eventable_id HAVING count(*) <> 1`), [],
    "each poll expired once")
}

t.test("two servers, 32 writers each, shared and separate threads and polls: ordered by the rows, counted right, once each", async (t) => {
  const receiver = await startReceiver()
  t.teardown(receiver.close)
  const smtp = await startSmtp()
  t.teardown(smtp.close)
  const { filename, group, keys } = await seeded()
  const env = { CONVENE_ALLOW_PRIVATE_WEBHOOKS: "1", CONVENE_SCHEDULER_INTERVAL_MS: "100", SMTP_URL: smtp.url }
  const [a, b] = await Promise.all([spawnServe(filename, env), spawnServe(filename, env)])
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  const admin = client(a, keys[0]!)
  t.equal((await admin.post("api/b2/chatbots", {
    json: { group_id: group.id, name: "Hook", server: `${receiver.url}/hook`, event_kinds: ["new_comment", "new_discussion", "stance_created", "poll_expired"] }
  })).statusCode, 200)
  const { threads, polls } = await stage(admin, group.id, () => new Date(Date.now() + 1500).toISOString())
  // each writer is one of the members, alternately through either server
  const as = (s: ServeProcess, n: number) => client(s, keys[n % MEMBERS]!)
  const done: Done = { statuses: [], comments: [] }
  await Promise.all(Array.from({ length: 2 * WRITERS }, (_, n) => writer(as(n % 2 === 0 ? a : b, n), as(n % 2 === 0 ? a : b, 0), `w${n}`, n, threads, polls, group.id, done)))

  t.same(done.statuses.filter((s) => s >= 500), [], "no request answered 5xx")
  // a vote may meet its poll closed by the scheduler meanwhile (422); nothing else is refused
  t.same([...new Set(done.statuses)].filter((s) => s !== 200 && s !== 422), [], "every write succeeded, or met a closed poll")
  t.equal(done.comments.length, 2 * WRITERS * ROUNDS, "every comment acknowledged")

  const db = await openSql(filename)
  t.teardown(db.close)
  t.same((await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM comments WHERE body LIKE 'w%round%'`))[0]!.n, done.comments.length,
    "every acknowledged comment is there, once")
  await invariants(t, db.sql)

  // every delivery made goes once: as many requests as deliveries, each done at its first attempt
  const deliveries = async () => (await db.sql<{ n: number; settled: number }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'done' AND attempts = 1)::int AS settled FROM webhook_deliveries`))[0]!
  const end = Date.now() + 60_000
  for (let d = await deliveries(); Date.now() < end && (d.settled < d.n || receiver.received.length < d.n); d = await deliveries()) {
    await new Promise((r) => setTimeout(r, 200))
  }
  await new Promise((r) => setTimeout(r, 1000))
  const final = await deliveries()
  t.ok(final.n > 2 * WRITERS * ROUNDS, "a delivery for every comment, thread, first vote and closing")
  t.equal(final.settled, final.n, "each delivery done at its first attempt")
  t.equal(receiver.received.length, final.n, "each delivered once")
  const mails = async () => (await db.sql<{ n: number; sent: number }>(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'sent' AND attempts = 1)::int AS sent FROM mail_outbox WHERE recipient_email LIKE 'w%'`))[0]!
  while (Date.now() < end && (await mails()).sent < 2 * WRITERS / 4) await new Promise((r) => setTimeout(r, 200))
  t.same(await mails(), { n: 2 * WRITERS / 4, sent: 2 * WRITERS / 4 }, "each invitation mailed, at its first attempt")
  t.equal(smtp.received.filter((m) => /^w\d+@/.test((m.to as { text: string }).text)).length, 2 * WRITERS / 4, "each invitation mailed once")
})

t.test("the same under kill -9 of one server: every acknowledged write is there, the invariants hold", async (t) => {
  const { filename, group, keys } = await seeded()
  const [a, b] = await Promise.all([spawnServe(filename), spawnServe(filename)])
  t.teardown(() => Promise.all([a.stop(), b.stop()]))
  const { threads, polls } = await stage(client(b, keys[0]!), group.id, () => future(24 * 365))
  const done: Done = { statuses: [], comments: [] }
  const survivors: Done = { statuses: [], comments: [] }
  const writers = Array.from({ length: 2 * WRITERS }, (_, n) =>
    writer(client(n % 2 === 0 ? a : b, keys[n % MEMBERS]!), client(n % 2 === 0 ? a : b, keys[0]!), `w${n}`, n, threads, polls, group.id, n % 2 === 0 ? done : survivors)
      // the killed server's writers see their connections refused or reset: that is the kill, not a server's answer
      .catch(() => undefined))
  // killed once its writers are well under way
  const kill = (async () => {
    const end = Date.now() + 30_000
    while (done.comments.length < WRITERS && Date.now() < end) await new Promise((r) => setTimeout(r, 5))
    t.equal(await a.stop("SIGKILL"), null, "killed mid-run")
  })()
  await Promise.all([...writers, kill])

  t.same(survivors.statuses.filter((s) => s >= 500), [], "the other server answered no 5xx")
  t.same([...new Set(survivors.statuses)].filter((s) => s !== 200), [], "and refused nothing")
  const db = await openSql(filename)
  t.teardown(db.close)
  const bodies = new Set((await db.sql<{ body: string }>(`SELECT body FROM comments WHERE body LIKE 'w%round%'`)).map((r) => r.body))
  t.same([...done.comments, ...survivors.comments].filter((c) => !bodies.has(c)), [], "every acknowledged comment is there")
  t.ok(done.comments.length >= WRITERS && done.comments.length < WRITERS * ROUNDS, "the killed server acknowledged some writes, not all")
  await invariants(t, db.sql)
  // the survivor goes on writing to the same threads after the kill
  const after = await client(b, keys[1]!).post("api/b2/comments", { json: { discussion_id: threads[0], body: "after the kill" } })
  t.equal(after.statusCode, 200)
  await invariants(t, db.sql)
})
