/**
 * Moving groups (decisions §7): `convene import loomio` and `convene export` through the real binary, and the
 * imported group read back through the real server.
 */
import { makeConvene, openConvene, Users } from "@convene/core"
import Database from "better-sqlite3"
import pg from "pg"
import { spawnSync } from "node:child_process"
import { copyFileSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import type { Got } from "got"
import t from "tap"
import { BIN, browserSession, childEnv, openSql, runBin, runHere, startTestServer, STORE, tempDbFile } from "./helpers.js"
import { matchExact } from "./match.js"
import { FIXTURE, type Line, loomioExport, newerFormat, writeJsonl } from "./loomio-fixture.js"

// imports through the binary, two servers and a 5 s wait for a held lock: more than tap's 30 s default
t.setTimeout(180_000)

/** A database with its administrator, as `convene init` makes it, in this process (a command's start costs seconds on a busy machine). */
const init = async (filename: string, email = "admin@convene.example") => {
  const c = await openConvene({ database: filename })
  try {
    const { user, apiKey } = await c.users.create({ email, name: "Admin", is_admin: true })
    return { id: user.id, api_key: apiKey }
  } finally {
    await c.close()
  }
}

const rows = async (filename: string, sql: string, ...params: Array<unknown>) => {
  const db = await openSql(filename)
  try {
    return await db.sql<Record<string, any>>(sql, ...params)
  } finally {
    await db.close()
  }
}

const CONTENT_TABLES = ["users", "groups", "memberships", "topics", "discussions", "comments", "polls", "poll_options", "stances", "stance_choices",
  "outcomes", "reactions", "topic_items", "topic_readers", "search_documents", "imports"]
/** Row counts of every table an import writes: equal before and after means nothing was written. */
const footprint = async (filename: string) =>
  Object.fromEntries(await Promise.all(CONTENT_TABLES.map(async (table) => [table, (await rows(filename, `SELECT count(*) AS n FROM ${table}`))[0]!.n])))

/** A database with its administrator and Bo, who already has an account here, and the export beside it. */
const target = async (t: { teardown: (fn: () => void) => void }, lines: ReadonlyArray<Line>) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await init(filename)
  // the export names Bo in other letter case
  const core = await openConvene({ database: filename })
  const bo = await core.users.create({ email: "bo@loomio.example", name: "Bo here" })
  await core.close()
  const file = join(dir, "export.jsonl")
  writeJsonl(file, lines)
  return { filename, file, bo }
}

/**
 * What an import holds while it writes: SQLite's write lock on the file, or (PostgreSQL) its tables, locked
 * against every other writer. A write waits for it (5 s on SQLite, lock_timeout's 10 s on PostgreSQL), then 503.
 */
const holdWriteLock = async (filename: string) => {
  if (STORE === "sqlite") {
    const db = new Database(filename)
    db.exec("BEGIN IMMEDIATE")
    return { release: async () => void (db.exec("ROLLBACK"), db.close()) }
  }
  const client = new pg.Client({ connectionString: filename })
  await client.connect()
  // what the PostgreSQL import holds while it copies (transfer/postgres.ts): its tables, to every other writer
  await client.query("BEGIN; LOCK TABLE users, groups, memberships, topics, discussions, comments, polls, stances IN EXCLUSIVE MODE")
  return { release: () => client.query("ROLLBACK").then(() => client.end()) }
}

t.test("a Loomio export imports whole, and the server answers as the export says", async (t) => {
  const { filename, file, bo } = await target(t, loomioExport())
  const before = (await footprint(filename))

  await t.test("--dry-run reports the counts and writes nothing", async (t) => {
    const r = await runHere(["import", "loomio", file, "--dry-run", "--json", "--db", filename])
    t.equal(r.code, 0, r.stderr)
    const report = JSON.parse(r.stdout)
    t.equal(report.dry_run, true)
    t.match(report.imported, { groups: 2, users: 5, memberships: 6, discussions: 3, polls: 2, stances: 7, comments: 4 })
    t.same((await footprint(filename)), before, "nothing written")
  })

  const r = await runBin(["import", "loomio", file, "--json", "--db", filename])
  t.equal(r.code, 0, r.stderr)
  const report = JSON.parse(r.stdout)
  t.same(report.imported, {
    users: 5, groups: 2, memberships: 6, topics: 4, discussions: 3, polls: 2, poll_options: 6, stances: 7, stance_choices: 6, outcomes: 1,
    comments: 4, reactions: 2, topic_items: 11, topic_readers: 2
  }, "counts per table")
  t.same(report.skipped, { notifications: 1, membership_requests: 1, attachments: 1, "events (membership_created)": 1 }, "tables convene has no place for")
  t.equal(report.users_matched, 1, "Bo matched by e-mail")
  t.equal(report.references_dropped, 1, "the inviter who is not in the file")
  t.match(report.group, { key: FIXTURE.groupKey, name: "Climate Action" })

  t.test("people: matched by e-mail, others created without an API key and never as server admins", async (t) => {
    t.same((await rows(filename, "SELECT name FROM users WHERE id = ?", bo.user.id)), [{ name: "Bo here" }], "the existing account is reused unchanged")
    t.equal((await rows(filename, "SELECT count(*) AS n FROM users WHERE email = 'bo@loomio.example'"))[0]!.n, 1)
    const ada = (await rows(filename, "SELECT * FROM users WHERE email = ?", FIXTURE.emails.ada))[0]!
    t.match(ada, { name: "Ada", username: "ada", country: "NZ", is_admin: 0, created_at: "2024-03-01T12:00:00.000Z" })
    t.equal((await rows(filename, "SELECT count(*) AS n FROM users WHERE api_key_hash = ?", ada.api_key_hash))[0]!.n, 1, "a key hash nobody holds")
  })

  const s = await startTestServer({}, { filename })
  t.teardown(s.close)
  const Bo = s.as(bo.apiKey)
  const group = (await Bo.get(`api/b2/groups/${FIXTURE.groupKey}`)).body as any

  t.test("the group, its subgroup and memberships with their states", async (t) => {
    t.match(group.groups[0], {
      name: "Climate Action", handle: "climate-action", key: FIXTURE.groupKey, members_can_add_members: true, memberships_count: 4,
      pending_memberships_count: 1, admin_memberships_count: 1, delegates_count: 1, discussions_count: 2, polls_count: 2, subgroups_count: 1,
      created_at: "2024-03-01T09:00:00.000Z"
    })
    const groupId = group.groups[0].id
    t.same((await s.sql("SELECT name, parent_id FROM groups WHERE key = ?", FIXTURE.subgroupKey)), [{ name: "Working group", parent_id: groupId }])
    const members = (await Bo.get(`api/b2/memberships?group_id=${groupId}`)).body as any
    const byName = new Map<string, any>(members.memberships.map((m: any) => [members.users.find((u: any) => u.id === m.user_id).name, m]))
    t.match(byName.get("Ada"), { admin: true, title: "Convenor" })
    t.match(byName.get("Bo here"), { admin: false, delegate: true, title: "Treasurer", user_id: bo.user.id })
    t.same((await s.sql("SELECT u.name, m.accepted_at, m.revoked_at FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.group_id = ? AND (m.accepted_at IS NULL OR m.revoked_at IS NOT NULL) ORDER BY u.name", groupId)), [
      { name: "Di", accepted_at: null, revoked_at: null },
      { name: "Ed", accepted_at: "2024-03-02T12:00:00.000Z", revoked_at: "2024-03-09T12:00:00.000Z" }
    ], "pending stays pending, revoked stays revoked")
  })

  t.test("a discussion's thread: reply structure, Loomio's order, soft deletes, reactions, the markdown document", async (t) => {
    const d = ((await Bo.get("api/b2/discussions/dSolar01")).body as any).discussions[0]
    t.match(d, { title: "Solar panels on the hall", description: "Shall we put *solar* on the roof?", private: true, closed_at: null, created_at: "2024-03-03T12:00:00.000Z" })
    const items = (await Bo.get(`api/b2/threads/${d.topic_id}/items`)).body as any
    t.same(items.items.map((i: any) => [i.sequence_id, i.kind, i.depth, i.position_key]), [
      [0, "new_discussion", 0, null],
      [1, "new_comment", 1, "00001"],
      [2, "new_comment", 2, "00001-00001"],
      [3, "new_comment", 1, "00002"],
      [4, "poll_created", 1, "00003"],
      [5, "stance_created", 2, "00003-00001"],
      [6, "outcome_created", 2, "00003-00002"]
    ])
    const comment = (body: string) => items.comments.find((c: any) => c.body === body)
    const reply = comment("How much does it cost?")
    t.equal(reply.parent_id, comment("Yes, **let's**.").id, "the reply keeps its parent")
    t.equal(items.items[2].parent_id, items.items[1].id, "and its item hangs from the parent's item")
    t.equal(items.comments.filter((c: any) => c.body === null).length, 1, "the removed comment stays removed (body hidden)")
    t.same(items.reactions.map((x: any) => [x.reactable_type, x.reaction]).sort(), [["Comment", "heart"], ["Discussion", "+1"]])
    const md = ((await Bo.get(`api/b2/threads/${d.topic_id}/markdown`)).body as any).markdown as string
    t.match(md, /# Discussion: Solar panels on the hall · Ada · 2024-03-03 12:00/)
    t.match(md, /Yes, \*\*let's\*\*\./)
    t.match(md, /> > \*\*Cy\*\* · 2024-03-05 12:00 · #2\n> >\n> > How much does it cost\?/, "the reply is nested in the document")
    t.notMatch(md, /Spam I removed/)
    const closed = ((await Bo.get("api/b2/discussions/dBikes01")).body as any).discussions[0]
    t.equal(closed.closed_at, "2024-03-09T12:00:00.000Z", "a closed discussion stays closed")
    t.equal((await Bo.get("api/b2/discussions/dGone001")).statusCode, 404, "a deleted discussion stays deleted")
    t.same((await s.sql("SELECT guest FROM topic_readers r JOIN users u ON u.id = r.user_id WHERE u.email = ?", FIXTURE.emails.gus)), [{ guest: 1 }], "the guest")
  })

  t.test("polls: options, counts per option from the latest cast ballots, outcome; anonymous stays anonymous", async (t) => {
    const body = (await Bo.get("api/b2/polls/pSolar01")).body as any
    const p = body.polls[0]
    t.match(p, { poll_type: "proposal", closed_at: "2024-03-11T12:00:00.000Z", hide_results: "off", notify_on_closing_soon: "undecided_voters", voters_count: 3, decided_voters_count: 2 })
    const score = (name: string) => p.results.find((r: any) => r.name === name).voter_count
    t.same([score("agree"), score("abstain"), score("disagree"), score("block")], [1, 0, 1, 0], "the replaced ballot does not count")
    t.match(body.outcomes[0], { statement: "We **agreed** to install.", review_on: "2024-04-01" })
    const anon = (await Bo.get("api/b2/polls/pMeet001")).body as any
    t.match(anon.polls[0], { anonymous: true, hide_results: "until_closed", discussion_id: null })
    t.same(anon.polls[0].results.map((r: any) => [r.name, r.voter_count]), [["Tuesday", 2], ["Thursday", 1]])
    t.notOk((anon.stances ?? []).some((x: any) => x.participant_id !== null && x.participant_id !== bo.user.id), "no other voter is named")
    t.same((await s.sql("SELECT review_sent_at IS NOT NULL AS sent FROM outcomes")), [{ sent: 1 }], "a review already due is not sent again")
  })

  t.test("imported content is searchable, typos included (the vocabulary is indexed in bulk)", async (t) => {
    const hits = async (query: string) =>
      (((await Bo.get("api/b2/search", { searchParams: { query } })).body as any).search_results as Array<any>).map((r) => r.searchable_type)
    t.same(await hits("cost"), ["Comment"], "a comment")
    t.same(await hits("cots"), ["Comment"], "one typo")
    t.same((await hits("power")).sort(), ["Stance"], "a vote's reason")
    t.same(await hits("Spam"), [], "not a removed comment")
    // SQLite's import drops the vocabulary trigger for its bulk indexing and puts it back
    if (STORE === "sqlite") {
      t.same((await s.sql("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name = 'search_documents_index'")), [{ n: 1 }], "the trigger is back")
    }
  })

  t.test("an imported person signs in with the people flow (an e-mailed code)", async (t) => {
    const b = browserSession(s.url)
    await b.get("/sign-in")
    t.equal((await b.post("/sign-in", { email: FIXTURE.emails.ada })).status, 200)
    t.same((await s.sql("SELECT m.kind FROM mail_outbox m JOIN users u ON u.id = m.recipient_user_id WHERE u.email = ?", FIXTURE.emails.ada)), [{ kind: "sign_in" }],
      "a sign-in code is on its way to the imported account")
  })

  t.test("while an import holds the tables it writes, writes to them wait for the lock and answer 503 (nothing written), reads go on", async (t) => {
    const page = browserSession(s.url)
    await page.get("/sign-in")
    const holder = await holdWriteLock(filename)
    try {
      const busyPage = await page.post("/sign-in", { email: FIXTURE.emails.cy })
      t.equal(busyPage.status, 503, "a page that writes")
      t.match(busyPage.html, /<h1>Busy<\/h1>[\s\S]*Nothing was changed; try again in a moment\./, "answers a page, not JSON")
      const d = ((await Bo.get("api/b2/discussions/dSolar01")).body as any).discussions[0]
      const before = (await s.sql("SELECT count(*) AS n FROM comments"))
      const started = Date.now()
      const busy = await Bo.post("api/b2/comments", { json: { discussion_id: d.id, body: "while importing" } })
      t.equal(busy.statusCode, 503)
      t.same(busy.body, { error: "The database is busy; try again shortly" })
      t.equal(busy.headers["retry-after"], "5")
      t.ok(Date.now() - started >= 4000, "after waiting for the lock")
      t.same((await s.sql("SELECT count(*) AS n FROM comments")), before)
      t.equal((await Bo.get("api/b2/discussions/dSolar01")).statusCode, 200, "reads are not held up")
    } finally {
      await holder.release()
    }
    const d = ((await Bo.get("api/b2/discussions/dSolar01")).body as any).discussions[0]
    t.equal((await Bo.post("api/b2/comments", { json: { discussion_id: d.id, body: "after the import" } })).statusCode, 200, "and writes work again after")
  })

  t.test("the same export again is refused and writes nothing", async (t) => {
    const after = (await footprint(filename))
    const again = await runHere(["import", "loomio", file, "--db", filename])
    t.equal(again.code, 1)
    t.match(again.stderr, /imported already/)
    t.same((await footprint(filename)), after)
  })
})

t.test("the newer format (topics, topic_items, topic_readers) imports to the same group as the older one", async (t) => {
  const imported = async (lines: ReadonlyArray<Line>) => {
    const { filename, file, bo } = await target(t, lines)
    const r = await runHere(["import", "loomio", file, "--json", "--db", filename])
    t.equal(r.code, 0, r.stderr)
    const s = await startTestServer({}, { filename })
    t.teardown(s.close)
    return { s, answers: await reads(s.as(bo.apiKey))(FIXTURE.groupKey, "dSolar01", ["pSolar01", "pMeet001"]), report: JSON.parse(r.stdout) }
  }
  const older = await imported(loomioExport())
  const newer = await imported(newerFormat(loomioExport()))
  t.match(newer.report.imported, { topics: 4, topic_items: 11, topic_readers: 2, comments: 4 })
  t.same(withoutIds(newer.answers), withoutIds(older.answers), "the same answers, ids aside")
  t.same((await newer.s.sql("SELECT closed_at FROM topics WHERE topicable_type = 'Discussion' AND closed_at IS NOT NULL")), [{ closed_at: "2024-03-09T12:00:00.000Z" }],
    "locked_at is the newer name of a closed thread")
})

t.test("a progress bar on a terminal, none in a pipe", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await init(filename)
  const file = join(dir, "export.jsonl")
  writeJsonl(file, loomioExport())
  // util-linux's script(1) gives the command a pseudo-terminal (bsdutils is essential on Debian)
  const tty = spawnSync("script", ["-qec", `"${process.execPath}" "${BIN}" import loomio "${file}" --dry-run --db "${filename}"`, "/dev/null"], {
    encoding: "utf8",
    env: childEnv()
  })
  t.equal(tty.status, 0, tty.stderr)
  t.match(tty.stdout, /reading \(bytes\) \[.*\] 100%/)
  t.match(tty.stdout, /writing \(records\) \[.*\] 100% 60\/60/)
  const piped = await runBin(["import", "loomio", file, "--dry-run", "--db", filename])
  t.equal(piped.stderr, "", "no bar when stderr is not a terminal")
})

t.test("bad input: a clear error naming the line and table, exit 1, nothing written", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await init(filename)
  const before = (await footprint(filename))
  const good = loomioExport()
  const at = (table: string) => good.findIndex((l) => l.table === table)
  const cases: Array<[string, Array<Line | string>, RegExp]> = [
    ["not JSON", [good[0]!, good[1]!, "{not json", ...good.slice(2)], /^error: line 3: is not JSON/],
    ["not {table, record}", [good[0]!, { table: "users" } as never, ...good.slice(1)], /^error: line 2: is not a \{"table"/],
    ["a record without its id", good.map((l, i) => (i === at("users") ? { table: "users", record: { name: "No id", email: "x@y.z" } } : l)), /^error: line 3 \(users\): the record has no id/],
    ["a wrong type", good.map((l, i) => (i === at("discussions") ? { table: "discussions", record: { ...l.record, title: 42 } } : l)), /line \d+ \(discussions\): title: Expected string/],
    ["a reference to a record not in the file", [...good, { table: "comments", record: { id: 599, discussion_id: 999, parent_id: 999, parent_type: "Discussion", user_id: 201, body: "x" } }],
      /line 63 \(comments\): discussion_id 999 refers to a discussions record that is not in the file/],
    ["a duplicate id", [...good.slice(0, 4), good[3]!, ...good.slice(4)], /^error: line 5 \(users\): duplicate id 202 \(first on line 4\)/],
    ["an unknown table", [...good.slice(0, 2), { table: "widgets", record: { id: 1 } }, ...good.slice(2)], /^error: line 3: unknown table "widgets"/],
    ["thread items whose parents form a cycle", good.map((l) => (l.table === "events" && l.record.id === 1102 ? { table: l.table, record: { ...l.record, parent_id: 1103 } } : l)),
      /the events' parent_id values form a cycle/],
    ["a vote for another poll's option", good.map((l) => (l.table === "stance_choices" && l.record.id === 2002 ? { table: l.table, record: { ...l.record, poll_option_id: 705 } } : l)),
      /\(stance_choices\): poll_option_id 705 is an option of another poll/],
    // decisions §5: every way in holds a body to the API's 1 MiB
    ["a comment longer than the API takes", good.map((l) => (l.table === "comments" && l === good.find((x) => x.table === "comments") ? { table: l.table, record: { ...l.record, body: "word ".repeat(220_000) } } : l)),
      /^error: line \d+ \(comments\): body is too long \(at most 1 MiB\)/]
  ]
  for (const [name, lines, message] of cases) {
    const file = join(dir, "bad.jsonl")
    writeJsonl(file, lines)
    const r = await runHere(["import", "loomio", file, "--db", filename])
    t.equal(r.code, 1, `${name}: exit 1`)
    t.match(r.stderr, message, name)
    t.same((await footprint(filename)), before, `${name}: nothing written`)
  }
  const json = await runHere(["import", "loomio", join(dir, "bad.jsonl"), "--json", "--db", filename])
  t.match(JSON.parse(json.stderr), { error: /body is too long/ }, "--json failures are JSON on stderr")
  const missing = await runHere(["import", "loomio", join(dir, "nope.jsonl"), "--db", filename])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /cannot read/)
})

t.test("html bodies are stored as the API stores them: sanitised", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await init(filename)
  const hostile = `<meta http-equiv="refresh" content="0;url=https://evil.example/"><script>alert(1)</script><b>kept</b>`
  const lines = loomioExport().map((l): Line =>
    l.table === "discussions" ? { table: l.table, record: { ...l.record, description: hostile, description_format: "html" } }
    : l.table === "comments" ? { table: l.table, record: { ...l.record, body: hostile, body_format: "html" } }
    : l.table === "polls" ? { table: l.table, record: { ...l.record, details: hostile, details_format: "html" } }
    : l.table === "outcomes" ? { table: l.table, record: { ...l.record, statement: hostile, statement_format: "html" } }
    : l)
  const file = join(dir, "hostile.jsonl")
  writeJsonl(file, lines)
  const r = await runHere(["import", "loomio", file, "--db", filename])
  t.equal(r.code, 0, r.stderr)
  const stored = await rows(filename, `SELECT description AS text FROM discussions UNION ALL SELECT body FROM comments
    UNION ALL SELECT details FROM polls UNION ALL SELECT statement FROM outcomes`)
  t.ok(stored.length >= 4)
  t.same([...new Set(stored.map((x) => x.text))], ["<b>kept</b>"], "every html body sanitised, none left raw")
})

t.test("an older export whose standalone poll has votes: Loomio's unnumbered items numbered in their order", async (t) => {
  // Loomio numbers sequence_id only inside a discussion: a standalone poll's events carry discussion_id and
  // sequence_id null, and a stance's parent is the poll's created event (Stance#parent_event)
  const standalone = { discussion_id: null, sequence_id: null, position_key: null }
  const lines: Array<Line> = [
    ...loomioExport(),
    { table: "events", record: { id: 1116, kind: "stance_created", eventable_type: "Stance", eventable_id: 807, user_id: null, parent_id: 1113, ...standalone, created_at: "2024-03-12T12:00:00.000Z" } },
    { table: "events", record: { id: 1115, kind: "stance_created", eventable_type: "Stance", eventable_id: 806, user_id: null, parent_id: 1113, ...standalone, created_at: "2024-03-11T12:00:00.000Z" } },
    { table: "events", record: { id: 1114, kind: "stance_created", eventable_type: "Stance", eventable_id: 805, user_id: null, parent_id: 1113, ...standalone, created_at: "2024-03-11T12:00:00.000Z" } },
    { table: "events", record: { id: 1117, kind: "poll_expired", eventable_type: "Poll", eventable_id: 602, user_id: null, parent_id: null, ...standalone, created_at: "2024-03-14T12:00:00.000Z" } }
  ]
  const { filename, file, bo } = await target(t, lines)
  const r = await runHere(["import", "loomio", file, "--json", "--db", filename])
  t.equal(r.code, 0, `imported: ${r.stderr}`)
  t.equal(JSON.parse(r.stdout).imported.topic_items, 15, "the four standalone items too")
  const ordered = await rows(filename, `SELECT i.id, i.sequence_id, i.kind, i.parent_id, i.itemable_type, i.itemable_id FROM topic_items i
    JOIN polls p ON p.topic_id = i.topic_id WHERE p.key = 'pMeet001' ORDER BY i.sequence_id`)
  t.same(ordered.map((i) => [i.sequence_id, i.kind]), [[0, "poll_created"], [1, "stance_created"], [2, "stance_created"], [3, "stance_created"], [4, "poll_expired"]],
    "numbered after the root by time, then by Loomio's id")
  const participants = await rows(filename, `SELECT u.email FROM stances s JOIN users u ON u.id = s.participant_id WHERE s.id IN (?, ?, ?)`,
    ordered[1]!.itemable_id, ordered[2]!.itemable_id, ordered[3]!.itemable_id)
  t.equal(participants.length, 3, "each vote item points at its stance")
  const root = ordered[0]!
  t.same(ordered.slice(1, 4).map((i) => i.parent_id), [root.id, root.id, root.id], "each vote under the poll's created item")
  void bo
})

t.test("a failure midway through the writing (the comments refused by the database) rolls every row back", async (t) => {
  const { filename, file } = await target(t, loomioExport())
  // a fault at a known point: the database refuses comments, which are written after people, groups and threads
  const refuse = STORE === "sqlite"
    ? ["CREATE TRIGGER refuse_comments BEFORE INSERT ON comments BEGIN SELECT RAISE(ABORT, 'comments refused by the test'); END"]
    : ["CREATE FUNCTION refuse_comments() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'comments refused by the test'; END $$",
      "CREATE TRIGGER refuse_comments BEFORE INSERT ON comments FOR EACH ROW EXECUTE FUNCTION refuse_comments()"]
  for (const statement of refuse) await rows(filename, statement)
  const before = await footprint(filename)
  const r = await runHere(["import", "loomio", file, "--db", filename])
  t.equal(r.code, 1, "refused")
  t.match(r.stderr, /^error: .*comments refused by the test/, "saying why")
  t.same(await footprint(filename), before, "the people, groups and threads written before the comments are gone too")
  await rows(filename, STORE === "sqlite" ? "DROP TRIGGER refuse_comments" : "DROP TRIGGER refuse_comments ON comments")
  const again = await runHere(["import", "loomio", file, "--db", filename])
  t.equal(again.code, 0, `and with the fault gone the same file imports: ${again.stderr}`)
})

t.test("export then import into an empty database gives the same API answers (ids aside)", async (t) => {
  const a = tempDbFile()
  const b = tempDbFile()
  t.teardown(() => {
    rmSync(a.dir, { recursive: true, force: true })
    rmSync(b.dir, { recursive: true, force: true })
  })
  // the same administrator on both servers (matched by e-mail), who reads everything
  const adminA = await init(a.filename)
  const adminB = await init(b.filename)

  const s = await startTestServer({}, { filename: a.filename })
  let closed = false
  t.teardown(() => (closed ? undefined : s.close()))
  const A = s.as(adminA.api_key)
  const ann = await s.convene.users.create({ email: "ann@example.org", name: "Ann" })
  const ben = await s.convene.users.create({ email: "ben@example.org", name: "Ben" })
  const admin = (await s.convene.users.show({ id: adminA.id })).user
  const { group } = await s.convene.groups.create({ name: "Round trip", owner: admin })
  await s.convene.members.add({ group, user: ann.user })
  await s.convene.members.add({ group, user: ben.user })
  const N = s.as(ann.apiKey), B = s.as(ben.apiKey)
  const d = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Plan", description: "The **plan**" } })).body as any).discussions[0]
  const c1 = ((await N.post("api/b2/comments", { json: { discussion_id: d.id, body: "First" } })).body as any).comments[0]
  await B.post("api/b2/comments", { json: { discussion_id: d.id, body: "A reply", parent_id: c1.id } })
  const gone = ((await B.post("api/b2/comments", { json: { discussion_id: d.id, body: "Oops" } })).body as any).comments[0]
  await B.delete(`api/b2/comments/${gone.id}`)
  await N.post("api/b2/reactions", { json: { reactable_type: "Comment", reactable_id: c1.id, reaction: "heart" } })
  const closing = new Date(Date.now() + 48 * 3600_000).toISOString()
  const p = ((await A.post("api/b2/polls", { json: { discussion_id: d.id, title: "Adopt?", poll_type: "proposal", closing_at: closing } })).body as any).polls[0]
  await N.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { agree: 1 }, reason: "Yes" } })
  await B.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { disagree: 1 } } })
  await B.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { abstain: 1 } } })
  const q = ((await A.post("api/b2/polls", { json: { group_id: group.id, title: "When?", poll_type: "poll", options: ["Mon", "Tue"], closing_at: closing, anonymous: true } })).body as any).polls[0]
  await N.post("api/b2/stances", { json: { poll_id: q.id, option_scores: { Mon: 1 } } })
  await A.post(`api/b2/polls/${q.id}/close`)
  await A.post("api/b2/outcomes", { json: { poll_id: q.id, statement: "Monday it is" } })

  // the rest of what a group holds: a subgroup with a closed thread, a pending invitation, a guest who comments,
  // a deleted thread, and every other poll type with a ballot
  const { group: sub } = await s.convene.groups.create({ name: "Working group", owner: admin, parent: group })
  await s.convene.members.add({ group: sub, user: ann.user })
  const dana = await s.convene.users.create({ email: "dana@example.org", name: "Dana" })
  await s.convene.members.add({ group, user: dana.user, pending: true })
  const gus = await s.convene.users.create({ email: "gus@example.org", name: "Gus" })
  const withGuest = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "With a guest", recipient_user_ids: [gus.user.id] } })).body as any).discussions[0]
  t.equal((await s.as(gus.apiKey).post("api/b2/comments", { json: { discussion_id: withGuest.id, body: "Hello from a guest" } })).statusCode, 200)
  const subThread = ((await A.post("api/b2/discussions", { json: { group_id: sub.id, title: "Sub thread" } })).body as any).discussions[0]
  await A.post(`api/b2/discussions/${subThread.id}/close`)
  const doomed = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "To delete" } })).body as any).discussions[0]
  await A.delete(`api/b2/discussions/${doomed.id}`)
  const others: Array<[string, Array<string> | undefined, Record<string, number>]> = [
    ["count", undefined, { accept: 1 }],
    ["score", ["a", "b"], { a: 4, b: 1 }],
    ["ranked_choice", ["x", "y", "z"], { x: 2, y: 3, z: 1 }],
    ["meeting", ["2019-01-01", "2019-01-02"], { "2019-01-01": 2, "2019-01-02": 1 }],
    ["dot_vote", ["p", "q"], { p: 5, q: 3 }]
  ]
  const otherKeys: Array<string> = []
  for (const [poll_type, options, scores] of others) {
    const made = await A.post("api/b2/polls", { json: { group_id: group.id, title: poll_type, poll_type, ...(options === undefined ? {} : { options }), closing_at: closing } })
    const poll = (made.body as any).polls[0]
    t.equal((await N.post("api/b2/stances", { json: { poll_id: poll.id, option_scores: scores } })).statusCode, 200, poll_type)
    otherKeys.push(poll.key)
  }

  const pollKeys = [p.key, q.key, ...otherKeys]
  // by keys: ids differ between the servers
  const extra = async (client: typeof A, guest: typeof A) => {
    const guestThread = (await guest.get(`api/b2/discussions/${withGuest.key}`)).body as any
    const subGroup = (await client.get(`api/b2/groups/${sub.key}`)).body as any
    return {
      guestThread,
      guestItems: (await guest.get(`api/b2/threads/${guestThread.discussions[0].topic_id}/items`)).body,
      subThread: (await client.get(`api/b2/discussions/${subThread.key}`)).body,
      subMembers: (await client.get(`api/b2/memberships?group_id=${subGroup.groups[0].id}`)).body,
      deleted: (await client.get(`api/b2/discussions/${doomed.key}`)).statusCode,
      threads: (await client.get("api/b2/threads")).body
    }
  }
  const originalExtra = await extra(A, s.as(gus.apiKey))
  const original = await reads(A)(group.key, d.key, pollKeys)
  closed = true
  await s.close()

  const file = join(a.dir, "round-trip.jsonl")
  const exported = await runHere(["export", group.key, "--to", file, "--json", "--db", a.filename])
  t.equal(exported.code, 0, exported.stderr)
  t.match(JSON.parse(exported.stdout).records, { groups: 2, users: 5, discussions: 4, comments: 4, polls: 7, discussion_readers: 18 })
  const text = readFileSync(file, "utf8")
  t.notMatch(text, /api_key|password|token/i, "no secrets in the export")
  t.notMatch(text, new RegExp(adminA.api_key), "not the administrator's key either")

  const imported = await runHere(["import", "loomio", file, "--json", "--db", b.filename])
  t.equal(imported.code, 0, imported.stderr)
  t.equal(JSON.parse(imported.stdout).users_matched, 1, "the administrator is matched by e-mail")

  const s2 = await startTestServer({}, { filename: b.filename })
  t.teardown(s2.close)
  const copy = await reads(s2.as(adminB.api_key))(group.key, d.key, pollKeys)
  t.same(withoutIds(copy), withoutIds(original), "the same answers, ids aside")
  // the guest never had a key on the new server: sign them in there by giving the imported account one
  const gusThere = (await s2.sql<{ id: number }>("SELECT id FROM users WHERE email = 'gus@example.org'"))[0]!
  const { apiKey: gusKey } = await s2.convene.run(Users.rotateApiKey({ id: gusThere.id }))
  const copyExtra = await extra(s2.as(adminB.api_key), s2.as(gusKey))
  t.same(withoutIds(copyExtra), withoutIds(originalExtra), "subgroup, guest, closed and deleted threads, the threads list: the same answers")
  matchExact(t, (copyExtra.guestItems as any).comments, [{ body: "Hello from a guest" }], "the guest still reads the thread")
  t.equal(copyExtra.deleted, 404, "the deleted thread stays deleted")
  t.match((copyExtra.subThread as any).discussions[0], { title: "Sub thread", closed_at: String }, "the subgroup's thread, closed")
  t.same((await s2.sql("SELECT count(*) AS n FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = 'dana@example.org' AND m.accepted_at IS NULL")), [{ n: 1 }],
    "the invitation stays pending")
  t.same((copy.items as any).items.map((i: any) => i.sequence_id), (original.items as any).items.map((i: any) => i.sequence_id))

  t.test("exporting a group into the database that holds it is refused", async (t) => {
    const back = join(b.dir, "back.jsonl")
    t.equal((await runHere(["export", group.key, "--to", back, "--db", b.filename])).code, 0)
    // a copy of the database that holds the group (a refused import writes nothing: on PostgreSQL the database itself)
    const copyDb = STORE === "sqlite" ? join(a.dir, "again.db") : a.filename
    if (STORE === "sqlite") copyFileSync(a.filename, copyDb)
    const r = await runHere(["import", "loomio", back, "--db", copyDb])
    t.equal(r.code, 1)
    t.match(r.stderr, /already holds group/)
    const unknown = await runHere(["export", "no-such-group", "--to", join(b.dir, "x.jsonl"), "--db", b.filename])
    t.equal(unknown.code, 1)
    t.match(unknown.stderr, /no group no-such-group/)
  })
})

/** What a reader sees of a group: the group, its discussions and one thread, polls, memberships. */
const reads = (client: Got) => async (groupKey: string, discussionKey: string, pollKeys: Array<string>) => {
  const g = (await client.get(`api/b2/groups/${groupKey}`)).body as any
  const groupId = g.groups[0].id
  const disc = (await client.get(`api/b2/discussions/${discussionKey}`)).body as any
  const topic = disc.discussions[0].topic_id
  return {
    group: g,
    discussions: (await client.get(`api/b2/discussions?group_id=${groupId}&status=all`)).body,
    discussion: disc,
    items: (await client.get(`api/b2/threads/${topic}/items`)).body,
    markdown: (await client.get(`api/b2/threads/${topic}/markdown`)).body,
    polls: await Promise.all(pollKeys.map(async (k) => (await client.get(`api/b2/polls/${k}`)).body)),
    pollList: (await client.get(`api/b2/polls?group_id=${groupId}&status=all`)).body,
    memberships: (await client.get(`api/b2/memberships?group_id=${groupId}`)).body
  }
}

/** An API answer with every id and key-like number taken out (they differ between servers) and lists kept in order. */
const withoutIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutIds)
  if (value === null || typeof value !== "object") return value
  return Object.fromEntries(Object.entries(value as Record<string, unknown>)
    .filter(([k]) => !(k === "id" || k.endsWith("_id") || k.endsWith("_ids")))
    .map(([k, v]) => [k, withoutIds(v)]))
}

t.test("a group's own poll templates come along: Loomio's rows, the built-ins the group hides and places, a poll's template; and go out again", async (t) => {
  const lines = loomioExport().map((l): Line =>
    l.table === "groups" && l.record.id === 101 ? { table: l.table, record: { ...l.record, hidden_poll_templates: ["consent", "not_ours"], poll_template_positions: { poll: -1 } } }
    : l.table === "polls" && l.record.id === 601 ? { table: l.table, record: { ...l.record, poll_template_id: 951 } }
    : l)
  lines.push(
    // Loomio's consent process as a proposal of its own options: a one-choice poll here
    { table: "poll_templates", record: { id: 951, group_id: 101, author_id: 201, poll_type: "proposal", process_name: "Consent, our way", process_subtitle: "Safe to try?",
      details: "Any objection?", poll_options: [{ name: "Consent", meaning: "safe", icon: "agree" }, { name: "Objection", icon: "disagree" }], default_duration_in_days: 5,
      stance_reason_required: 2, hide_results: 0, notify_on_closing_soon: 1, position: 11, created_at: "2024-01-05T10:00:00Z", updated_at: "2024-01-05T10:00:00Z" } },
    { table: "poll_templates", record: { id: 952, group_id: 101, author_id: 201, poll_type: "proposal", process_name: "Quick proposal", poll_options: [{ name: "Agree" }, { name: "Disagree" }],
      discarded_at: "2024-01-06T10:00:00Z", created_at: "2024-01-05T10:00:00Z" } },
    { table: "poll_templates", record: { id: 953, group_id: 101, author_id: 201, poll_type: "poll", process_name: null, title: null, created_at: "2024-01-05T10:00:00Z" } }
  )
  const { filename, file, bo } = await target(t, lines)
  const r = await runHere(["import", "loomio", file, "--json", "--db", filename])
  t.equal(r.code, 0, r.stderr)
  const report = JSON.parse(r.stdout)
  t.equal(report.imported.poll_templates, 2)
  t.equal(report.skipped["poll_templates (not valid here)"], 1, "a template without a name is left out")
  t.match(report.warnings.join("\n"), new RegExp(`line ${lines.length}: the poll template "" was left out \\(process_name can't be blank\\)`))

  const s = await startTestServer({}, { filename })
  t.teardown(s.close)
  const Bo = s.as(bo.apiKey)
  const group = ((await Bo.get(`api/b2/groups/${FIXTURE.groupKey}`)).body as any).groups[0]
  const list = ((await Bo.get(`api/b2/poll_templates?group_id=${group.id}`)).body as any).poll_templates as Array<any>
  t.equal(list[0].key, "poll", "placed first by the group")
  t.notOk(list.some((p) => p.key === "consent"), "the built-in the group hides")
  t.notOk(list.some((p) => p.name === "Quick proposal"), "a discarded template is hidden")
  const ours = list.find((p) => p.name === "Consent, our way")
  matchExact(t, ours, {
    id: Number, key: null, source_key: null, poll_type: "poll", name: "Consent, our way", process_subtitle: "Safe to try?", details: "Any objection?",
    options: ["Consent", "Objection"], default_duration_in_days: 5, position: 11,
    settings: { anonymous: false, specified_voters_only: false, shuffle_options: false, hide_results: "off", notify_on_closing_soon: "author", stance_reason_required: "required",
      allow_delegated_votes: true, maximum_stance_choices: 1 }
  })
  const [quick] = await s.sql<any>("SELECT poll_type, poll_options, discarded_at FROM poll_templates WHERE process_name = ?", "Quick proposal")
  matchExact(t, { ...quick, poll_options: typeof quick.poll_options === "string" ? JSON.parse(quick.poll_options) : quick.poll_options },
    { poll_type: "proposal", poll_options: ["agree", "disagree"], discarded_at: String }, "a proposal's own options, kept hidden")
  t.equal(((await Bo.get("api/b2/polls/pSolar01")).body as any).polls[0].poll_template_id, ours.id, "the poll names its template's new id")

  // and out again: Loomio's lines, the enumerations as its numbers
  const out = join(tempDbFile().dir, "again.jsonl")
  const exported = await runHere(["export", FIXTURE.groupKey, "--to", out, "--db", filename])
  t.equal(exported.code, 0, exported.stderr)
  const again = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Line)
  const line = again.find((l) => l.table === "poll_templates" && l.record.process_name === "Consent, our way")!
  const { poll_type, poll_options, stance_reason_required, notify_on_closing_soon, default_duration_in_days, position } = line.record
  matchExact(t, { poll_type, poll_options, stance_reason_required, notify_on_closing_soon, default_duration_in_days, position },
    { poll_type: "poll", poll_options: ["Consent", "Objection"], stance_reason_required: 2, notify_on_closing_soon: 1, default_duration_in_days: 5, position: 11 })
  const top = again.find((l) => l.table === "groups" && l.record.key === FIXTURE.groupKey)!.record
  matchExact(t, [top.hidden_poll_templates, top.poll_template_positions], [["consent"], { poll: -1 }])
  t.equal(again.find((l) => l.table === "polls" && l.record.key === "pSolar01")!.record.poll_template_id, line.record.id)
})
