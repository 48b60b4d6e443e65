/**
 * SQLite: every statement the store prepares that tests a flag (`latest`, `counted`, `guest`, …) finds the
 * partial index made for that flag. The statements are written once for both stores with PostgreSQL's `= TRUE`;
 * SQLite's planner matches a partial index only by the expression it was made with (`WHERE latest = 1`), so the
 * adapter writes the flags as 1 and 0 (sqlite/db.ts). Without that, a poll's first voters were read by scanning
 * every choice of every poll (the voted poll's document at 0.08 of the bare server, bench/votes.js).
 * The statements are taken from the driver as the server prepares them while a poll is voted on and read.
 * Also: a vote's loud listeners are found from the few loud volume rows (their partial indexes, migration 24),
 * not by reading every member of the group (the votes of a 10,000-member group at 0.24 of the bare server).
 */
import Database from "better-sqlite3"
import t from "tap"
import { seedUser, startTestServer, future } from "./helpers.js"

const prepared = new Set<string>()
const prepare = Database.prototype.prepare
Database.prototype.prepare = function (this: Database.Database, sql: string) {
  prepared.add(sql)
  return prepare.call(this, sql)
} as typeof prepare

/** The partial indexes of the schema whose condition tests a flag: table → the flag's condition. */
const flagIndexes = (db: Database.Database) =>
  (db.prepare(`SELECT tbl_name AS t, name, sql FROM sqlite_schema WHERE type = 'index' AND sql LIKE '% WHERE %= 1%'`).all() as Array<{ t: string; name: string; sql: string }>)

/** The statement's query plan, its parameters bound to NULL (the plan depends on the statement's shape). */
const plan = (db: Database.Database, sql: string) => {
  const stripped = sql.replace(/'(?:[^']|'')*'/g, "''")
  const names = [...new Set([...stripped.matchAll(/@([A-Za-z_]\w*)/g)].map((m) => m[1]!))]
  const positional = (stripped.match(/\?/g) ?? []).length
  const statement = prepare.call(db, `EXPLAIN QUERY PLAN ${sql}`)
  const rows = (names.length > 0 ? statement.all(Object.fromEntries(names.map((n) => [n, null]))) : (statement.all as (...a: Array<unknown>) => unknown)(...Array(positional).fill(null))) as Array<{ detail: string }>
  return rows.map((r) => r.detail)
}

t.test("a flag's test finds its partial index on SQLite", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const group = (await s.convene.groups.create({ name: "Council", owner: ada.user })).group
  const voters = []
  for (let i = 0; i < 4; i++) {
    const v = await seedUser(s.convene, { name: `Voter ${i}` })
    await s.convene.members.add({ group, user: v.user })
    voters.push(v)
  }
  const created = await s.as(ada.apiKey).post("api/b2/polls", { json: { group_id: group.id, poll_type: "proposal", title: "Adopt", closing_at: future(24 * 365) } })
  t.equal(created.statusCode, 200)
  const poll = (created.body as any).polls[0]
  for (const v of voters) t.equal((await s.as(v.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { agree: 1 } } })).statusCode, 200)
  t.equal((await s.as(voters[0]!.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { disagree: 1 } } })).statusCode, 200, "a changed vote")
  t.equal((await s.as(ada.apiKey).get(`api/b2/polls/${poll.id}`)).statusCode, 200)
  t.equal((await s.as(ada.apiKey).get(`api/b2/polls?group_id=${group.id}`)).statusCode, 200)

  const db = new Database(s.filename, { readonly: true })
  t.teardown(() => db.close())
  const indexes = flagIndexes(db)
  t.ok(indexes.some((i) => i.name === "stance_choices_counted") && indexes.some((i) => i.name === "stances_latest"), "the schema's flag indexes")
  const flagged = [...prepared].filter((sql) => /\b(counted|latest) = (1|TRUE)\b/.test(sql) && /^\s*SELECT/i.test(sql))
  t.ok(flagged.length >= 3, `the store read by a flag (${flagged.length} statements)`)
  t.same(flagged.filter((sql) => /= TRUE\b/.test(sql)), [], "no statement reaches SQLite with `= TRUE`")
  // each test of a ballot's flag is answered through the index made for it (a choice counted; a ballot the latest)
  const uses = (sql: string) => plan(db, sql).join(" | ")
  for (const sql of flagged.filter((q) => /counted = (1|TRUE)/.test(q))) t.match(uses(sql), /stance_choices_counted/, `counted: ${sql.replace(/\s+/g, " ").slice(0, 120)}`)
  for (const sql of flagged.filter((q) => /\bstances\b/.test(q) && /latest = (1|TRUE)/.test(q))) {
    // ballots a delegate's vote cast are counted through their own index (decisions §15)
    t.match(uses(sql), /delegated_by/.test(sql) ? /USING INDEX stances_delegated/ : /stances_latest|stances_report/, `latest: ${sql.replace(/\s+/g, " ").slice(0, 120)}`)
  }
  t.ok(flagged.some((q) => /counted = (1|TRUE)/.test(q)), "a poll's first voters were read")

  // who asked to hear everything: found from the loud rows, never by reading every member of the group
  const loud = [...prepared].filter((q) => /FROM thread_volumes tv/.test(q) && /UNION/.test(q))
  t.ok(loud.length >= 1, "a vote asked for the loud listeners")
  for (const sql of loud) {
    const detail = uses(sql)
    t.match(detail, /thread_volumes_loud/, "a thread's loud listeners through their index")
    t.match(detail, /group_volumes_loud/, "a group's loud listeners through theirs")
    t.notMatch(detail, /SEARCH m USING INDEX \w+ \(group_id=\?\)/, "not every member of the group")
  }
})
