/**
 * PostgreSQL's own types (the PostgreSQL pass only): every flag is `boolean`, every instant `timestamptz`, JSON
 * `jsonb`, a review date `date`. A database at schema version 5 (flags as 0/1, times as text, as convene made
 * them until now) holding a group, a thread, a comment, an open poll with a vote, a closed poll with an outcome
 * and a webhook is converted in place when convene opens it: a server on it answers each record as written (the
 * same instants to the millisecond, flags true and false, tags), its counters stand, search finds what it held,
 * and a new vote is counted by the triggers made again for the new types.
 */
import { openConvene, pgMigrations } from "@convene/core"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import pg from "pg"
import t from "tap"
import { dropDatabase, PG, startTestServer } from "./helpers.js"
import { makePgRunner, makePool, recordTypes } from "../packages/core/src/postgres/db.js"
import { matchExact } from "./match.js"

if (PG === undefined) throw new Error("pg-types.test runs in the PostgreSQL pass (CONVENE_TEST_PG)")

const name = `t_${randomBytes(6).toString("hex")}`
execFileSync("psql", [`${PG}/postgres`, "-qXc", `CREATE DATABASE ${name}`], { stdio: ["ignore", "ignore", "inherit"] })
const url = `${PG}/${name}`
t.teardown(() => dropDatabase(url))

const T1 = "2024-01-02T03:04:05.678Z"
const T2 = "2024-02-03T04:05:06.789Z"
const CLOSING = new Date(Date.now() + 7 * 86400_000).toISOString()

// schema version 5, and rows written as version 5 wrote them
const old = new pg.Client({ connectionString: url })
await old.connect()
for (const migration of pgMigrations.slice(0, 5)) await old.query(migration)
await old.query("CREATE TABLE convene_schema (version integer NOT NULL); INSERT INTO convene_schema VALUES (5)")
await old.query(`
  INSERT INTO users (id, name, email, is_admin, bot, api_key_hash, created_at, updated_at)
    VALUES (1, 'Ada', 'ada@example.org', 1, 0, 'not-a-key', '${T1}', '${T1}');
  INSERT INTO groups (id, key, name, members_can_add_members, members_can_vote, created_at, updated_at)
    VALUES (10, 'oldgroup', 'Old group', 0, 1, '${T1}', '${T2}');
  INSERT INTO memberships (group_id, user_id, admin, delegate, accepted_at, created_at, updated_at)
    VALUES (10, 1, 1, 1, '${T1}', '${T1}', '${T1}');
  INSERT INTO topics (id, group_id, topicable_type, topicable_id, private, tags, items_count, last_activity_at, created_at, updated_at)
    VALUES (20, 10, 'Discussion', 30, 1, '["budget","2024"]', 6, '${T2}', '${T1}', '${T2}');
  INSERT INTO discussions (id, key, topic_id, author_id, title, description, created_at, updated_at)
    VALUES (30, 'olddiscussion', 20, 1, 'Spending plan', 'What we spend on aardvarks', '${T1}', '${T2}');
  INSERT INTO comments (id, discussion_id, author_id, body, created_at, updated_at)
    VALUES (31, 30, 1, 'An old comment', '${T2}', '${T2}');
  INSERT INTO polls (id, key, topic_id, author_id, title, poll_type, closing_at, opened_at, anonymous, shuffle_options,
      min_score, max_score, minimum_stance_choices, maximum_stance_choices, dots_per_person, can_respond_maybe, created_at, updated_at)
    VALUES (40, 'oldpoll', 20, 1, 'Agree?', 'proposal', '${CLOSING}', '${T1}', 0, 0, 1, 1, 1, 1, 1, 0, '${T1}', '${T1}');
  INSERT INTO poll_options (id, poll_id, name, priority) VALUES (401, 40, 'agree', 0), (402, 40, 'disagree', 1);
  INSERT INTO stances (id, poll_id, participant_id, latest, cast_at, reason, created_at, updated_at)
    VALUES (4001, 40, 1, 1, '${T2}', 'old reasons', '${T1}', '${T2}');
  INSERT INTO stance_choices (stance_id, poll_option_id, score) VALUES (4001, 401, 1);
  INSERT INTO polls (id, key, topic_id, author_id, title, poll_type, closing_at, opened_at, closed_at, anonymous, shuffle_options,
      min_score, max_score, minimum_stance_choices, maximum_stance_choices, dots_per_person, can_respond_maybe, created_at, updated_at)
    VALUES (41, 'closedpoll', 20, 1, 'Done?', 'proposal', '${T2}', '${T1}', '${T2}', 0, 0, 1, 1, 1, 1, 1, 0, '${T1}', '${T2}');
  INSERT INTO poll_options (id, poll_id, name, priority) VALUES (411, 41, 'agree', 0);
  INSERT INTO outcomes (id, poll_id, author_id, statement, review_on, latest, created_at, updated_at)
    VALUES (50, 41, 1, 'We agreed', '2019-06-01', 1, '${T2}', '${T2}');
  INSERT INTO topic_items (id, topic_id, kind, sequence_id, parent_id, depth, position, child_count, itemable_type, itemable_id, actor_id, created_at)
    VALUES (70, 20, 'new_discussion', 0, NULL, 0, 0, 0, 'Discussion', 30, 1, '${T1}'),
      (71, 20, 'poll_created', 1, NULL, 0, 0, 1, 'Poll', 40, 1, '${T1}'),
      (72, 20, 'stance_created', 2, 71, 1, 1, 0, 'Stance', 4001, 1, '${T2}'),
      (73, 20, 'new_comment', 3, NULL, 0, 0, 0, 'Comment', 31, 1, '${T2}'),
      (74, 20, 'poll_created', 4, NULL, 0, 0, 0, 'Poll', 41, 1, '${T1}'),
      (75, 20, 'outcome_created', 5, NULL, 0, 0, 0, 'Outcome', 50, 1, '${T2}');
  INSERT INTO chatbots (id, group_id, author_id, name, kind, webhook_kind, server, event_kinds, notification_only, created_at, updated_at)
    VALUES (60, 10, 1, 'Old hook', 'webhook', 'markdown', 'https://hooks.example.org/x', '["new_comment","poll_created"]', 1, '${T1}', '${T1}');
`)
await old.end()

// convene opens it: migration 6 converts it in place
const core = await openConvene({ database: url })
const bob = await core.users.create({ email: "bob@example.org", name: "Bob" })
const group = (await core.groups.list()).find((g) => g.group.id === 10)!.group
await core.members.add({ group, user: bob.user, admin: true })
await core.close()

t.test("every flag is boolean, every instant timestamptz, JSON jsonb: no column keeps the old types", async (t) => {
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  const columns = (await db.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema()`
  )).rows
  await db.end()
  const type = (table: string, column: string) => columns.find((c) => c.table_name === table && c.column_name === column)?.data_type
  const instants = columns.filter((c) => /_at$|^at$|_until$/.test(c.column_name))
  t.ok(instants.length > 60, `the instants are found (${instants.length})`)
  t.same(instants.filter((c) => c.data_type !== "timestamp with time zone").map((c) => `${c.table_name}.${c.column_name}`), [], "every instant is timestamptz")
  const flags = ["users.is_admin", "users.bot", "groups.enabled", "groups.members_can_vote", "groups.admins_can_edit_user_content",
    "memberships.admin", "memberships.delegate", "topics.private", "topic_readers.guest", "chatbots.notification_only",
    "polls.anonymous", "polls.shuffle_options", "polls.specified_voters_only", "polls.can_respond_maybe", "stances.latest",
    "outcomes.latest", "stance_choices.counted"]
  t.same(flags.filter((f) => type(...(f.split(".") as [string, string])) !== "boolean"), [], "every flag is boolean")
  t.same(["topics.tags", "chatbots.event_kinds", "webhook_events.message", "imports.counts"].map((f) => type(...(f.split(".") as [string, string]))),
    ["jsonb", "jsonb", "jsonb", "jsonb"], "JSON is jsonb")
  t.equal(type("outcomes", "review_on"), "date", "a review date is a date")
  t.same(columns.filter((c) => c.data_type === "bigint" && !/(^id|_id|_count|count|_score|score|_choices|per_person|priority|attempts|depth|position|sequence_id|max_depth|last_status|_by|^value|whodunnit|byte_size)$/.test(c.column_name))
    .map((c) => `${c.table_name}.${c.column_name}`), [], "no bigint is left holding a flag")
})

t.test("the converted records answer as they were written, counters stand, new writes are counted", async (t) => {
  const s = await startTestServer({}, { filename: url })
  t.teardown(s.close)
  const B = s.as(bob.apiKey)

  const d = (await B.get("api/b2/discussions/30")).body as unknown as {
    discussions: Array<Record<string, unknown>>
    topics: Array<Record<string, unknown>>
    users: Array<Record<string, unknown>>
  }
  t.match(d.discussions[0], { id: 30, key: "olddiscussion", title: "Spending plan", private: true, created_at: T1, updated_at: T2, last_activity_at: T2 })
  matchExact(t, d.topics[0], { tags: ["budget", "2024"], items_count: 6, created_at: T1, closed_at: null })
  t.match(d.users.find((u) => u.id === 1), { name: "Ada", bot: false })

  const g = (await B.get("api/b2/groups/10")).body as unknown as { groups: Array<Record<string, unknown>> }
  t.match(g.groups[0], {
    members_can_add_members: false,
    members_can_vote: true,
    enabled: true,
    memberships_count: 2,
    admin_memberships_count: 2,
    delegates_count: 1,
    created_at: T1
  })
  const m = (await B.get("api/b2/memberships?group_id=10")).body as unknown as { memberships: Array<Record<string, unknown>> }
  t.match(m.memberships.find((x) => x.user_id === 1), { admin: true, delegate: true, accepted_at: T1 })

  const p = (await B.get("api/b2/polls/40")).body as unknown as { polls: Array<Record<string, unknown>>; poll_options: Array<Record<string, unknown>> }
  t.match(p.polls[0], { anonymous: false, shuffle_options: false, can_respond_maybe: false, closing_at: CLOSING, voters_count: 2, decided_voters_count: 1 })
  t.match(p.poll_options.find((o) => o.name === "agree"), { voter_count: 1, total_score: 1 })

  const closed = (await B.get("api/b2/polls/41")).body as unknown as { outcomes: Array<Record<string, unknown>> }
  t.match(closed.outcomes[0], { id: 50, review_on: "2019-06-01", latest: true, created_at: T2 })

  const bots = (await B.get("api/b2/chatbots?group_id=10")).body as unknown as { chatbots: Array<Record<string, unknown>> }
  t.same(bots.chatbots[0]!.event_kinds, ["new_comment", "poll_created"])
  t.equal(bots.chatbots[0]!.notification_only, true)

  const found = (await B.get("api/b2/search?query=aardvarks")).body as unknown as { search_results: Array<Record<string, unknown>> }
  t.match(found.search_results[0], { searchable_type: "Discussion", searchable_id: 30, authored_at: T1 })

  // the triggers made again count a new vote, and a changed one
  const vote = await B.post("api/b2/stances", { json: { poll_id: 40, option_scores: { disagree: 1 } } })
  t.equal(vote.statusCode, 200, JSON.stringify(vote.body))
  const after = (await B.get("api/b2/polls/40")).body as unknown as { polls: Array<Record<string, unknown>>; poll_options: Array<Record<string, unknown>> }
  t.match(after.polls[0], { voters_count: 2, decided_voters_count: 2, undecided_voters_count: 0 })
  t.match(after.poll_options.find((o) => o.name === "disagree"), { voter_count: 1 })
  const again = await B.post("api/b2/stances", { json: { poll_id: 40, option_scores: { agree: 1 } } })
  t.equal(again.statusCode, 200)
  const changed = (await B.get("api/b2/polls/40")).body as unknown as { poll_options: Array<Record<string, unknown>> }
  t.match(changed.poll_options.find((o) => o.name === "agree"), { voter_count: 2 })
  t.match(changed.poll_options.find((o) => o.name === "disagree"), { voter_count: 0 })
  const rows = await s.sql<{ latest: number; n: number }>("SELECT latest, count(*) AS n FROM stances WHERE poll_id = 40 GROUP BY latest ORDER BY latest")
  t.same(rows, [{ latest: 0, n: 1 }, { latest: 1, n: 2 }], "one latest ballot each, the replaced one kept (read as 0/1, as on SQLite)")
})

t.test("the adapter builds each row as pg would: every column in order, parsed to the records' own types", async (t) => {
  // the adapter's own runner (postgres/db.ts), beside a plain pg pool with the same type parsers
  const pool = makePool(url, 2)
  const q = makePgRunner(pool)
  const plain = new pg.Pool({ connectionString: url, max: 1, types: recordTypes })
  t.teardown(async () => {
    await q.close()
    await plain.end()
  })
  const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)
  const both = async (sql: string) => [await run(q.all(sql)), (await plain.query(sql)).rows] as const

  const [row] = await run(q.all(`SELECT 1 AS a, 'two' AS b, NULL::text AS "t.c", 3 AS a`))
  t.same(Object.entries(row!), [["a", 3], ["b", "two"], ["t.c", null]], "in order, a repeated name in its first place with its last value")
  const [odd] = await run(q.all(`SELECT 1 AS "__proto__", 2 AS "constructor", 3 AS "with ""quotes"" and \\ backslash"`))
  t.equal(Object.getPrototypeOf(odd), Object.prototype, "a column named __proto__ does not change the row's prototype")
  t.same(Object.keys(odd!), ["__proto__", "constructor", `with "quotes" and \\ backslash`])

  // every type convene's columns hold, null and not, five rows of 120 columns, twice (the second from the kept shape)
  const kinds = [`i::bigint`, `'text ' || i`, `i % 2 = 0`, `'2024-01-02T03:04:05.678Z'::timestamptz + i * interval '1 second'`,
    `'{"b": [1, 2], "a": "x"}'::jsonb`, `'2019-06-01'::date + i`, `i::integer`, `NULL::timestamptz`, `1.5::numeric`, `ARRAY[i, 2]`]
  const wide = `SELECT ${Array.from({ length: 120 }, (_, i) => `${kinds[i % kinds.length]} AS c${i}`).join(", ")} FROM generate_series(1, 5) AS i`
  for (const pass of ["first", "again"]) {
    const [ours, pgs] = await both(wide)
    t.equal(ours.length, 5, pass)
    t.same(ours, pgs, `${pass}: the rows pg builds itself`)
    t.same(ours.map((r) => Object.keys(r).length), [120, 120, 120, 120, 120], pass)
  }
  t.match((await run(q.all(wide)))[1], { c0: 2, c1: "text 2", c2: true, c3: "2024-01-02T03:04:07.678Z", c5: "2019-06-03", c7: null })
  const [first] = await run(q.all(wide))
  t.same([first!.c2, first!.c4], [false, { a: "x", b: [1, 2] }], "a flag as a boolean, JSON parsed")

  // a statement that fails answers its SQLSTATE, and the connections serve the next statement
  const failed = await Effect.runPromiseExit(q.all("SELECT 1 / (i - 3) AS x FROM generate_series(1, 5) AS i"))
  t.match(JSON.stringify(failed), /22012/, "division by zero, with its code")
  t.same(await run(q.all("SELECT 7 AS x")), [{ x: 7 }])
  // a write's count of the rows it changed
  const changed = await run(q.transaction(q.run("UPDATE users SET name = name WHERE id = ?", 1)))
  t.equal(changed.changes, 1)

  // within a request, the caches' epochs are read once; a write's COMMIT reads them as it left them
  const [before, kept, after] = await run(q.request(Effect.gen(function*() {
    const first = yield* q.cacheEpochs
    const again = yield* q.cacheEpochs
    yield* q.transaction(q.run("UPDATE memberships SET title = 'moved' WHERE user_id = ?", 1))
    return [first, again, yield* q.cacheEpochs] as const
  })))
  t.equal(kept, before, "kept for the request")
  t.equal(after!.get("memberships"), before!.get("memberships")! + 1, "the membership's change seen by the same request after its write")
})
