/**
 * `convene copy --from SOURCE --to TARGET` (the PostgreSQL pass only: it needs both stores): an install with
 * every kind of record (an imported Loomio group, people with keys and sessions, threads, polls, votes,
 * outcomes, reactions, a chatbot with deliveries waiting, mail waiting) copied from its SQLite file into
 * PostgreSQL and back; every table the same, row for row; a server on the copy answering as the source did, the
 * same key signing in. Refusals (a target holding data, an unreachable target, a source from a newer convene)
 * with their messages, and nothing written.
 */
import { openConvene } from "@convene/core"
import Database from "better-sqlite3"
import got, { type Got } from "got"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"
import { BIN, childEnv, openSql, PG, runBin, runHere, spawnServe, tempDbFile, future } from "./helpers.js"
import { loomioExport, writeJsonl } from "./loomio-fixture.js"

if (PG === undefined) throw new Error("copy.test runs in the PostgreSQL pass (CONVENE_TEST_PG): it copies between both stores")
t.setTimeout(120_000)

const dir = mkdtempSync(join(tmpdir(), "convene-copy-"))
const api = (url: string, key: string): Got =>
  got.extend({ prefixUrl: url, headers: { authorization: `Bearer ${key}` }, responseType: "json", throwHttpErrors: false, retry: { limit: 0 } })

/** A SQLite file read here, whichever store this pass tests. */
const fileSql = (filename: string) => {
  const db = new Database(filename, { readonly: true })
  return { sql: async <T>(query: string) => db.prepare(query).all() as Array<T>, close: async () => void db.close() }
}

/** A JSON object by its content: PostgreSQL's jsonb keeps an object's keys in an order of its own. */
const canonical = (value: unknown): unknown => {
  if (typeof value !== "string" || !value.startsWith("{")) return value
  const sorted = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sorted) : typeof v === "object" && v !== null ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v
  try {
    return JSON.stringify(sorted(JSON.parse(value)))
  } catch {
    return value
  }
}

/** Every row of every copied table, in a stable order: what must be the same on both sides. */
const contents = async (filename: string) => {
  const db = filename.startsWith("postgres") ? await openSql(filename) : fileSql(filename)
  try {
    const tables = filename.startsWith("postgres")
      ? (await db.sql<{ name: string }>(`SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind = 'r' AND n.nspname = current_schema()`)).map((r) => r.name)
      : (await db.sql<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`)).map((r) => r.name)
    const out: Record<string, Array<string>> = {}
    for (const table of tables.filter((n) => !/^(search_(?!documents$)|sqlite_|convene_schema$|cache_epochs$)/.test(n)).sort()) {
      out[table] = (await db.sql<Record<string, unknown>>(`SELECT * FROM ${table}`))
        // PostgreSQL's own index column (tsv) aside
        .map((row) => JSON.stringify(Object.keys(row).filter((k) => k !== "tsv").sort().map((k) => [k, canonical(row[k])])))
        .sort()
    }
    return out
  } finally {
    await db.close()
  }
}

/** A SQLite install with a little of everything, and what a member's key reads from it. */
const source = async () => {
  const filename = join(dir, "source.db")
  const core = await openConvene({ database: filename })
  const admin = await core.users.create({ email: "admin@convene.example", name: "Admin", is_admin: true })
  const { group } = await core.groups.create({ name: "Copied", owner: admin.user })
  await core.close()
  const file = join(dir, "export.jsonl")
  writeJsonl(file, loomioExport())
  const imported = await runHere(["import", "loomio", file, "--db", filename])
  if (imported.code !== 0) throw new Error(imported.stderr)
  const s = await spawnServe(filename, { CONVENE_ALLOW_PRIVATE_WEBHOOKS: "1" })
  try {
    const A = api(s.url, admin.apiKey)
    // a chatbot whose deliveries wait (its server answers nothing), an invitation whose mail waits (no transport)
    await A.post("api/b2/chatbots", { json: { group_id: group.id, name: "Hook", server: "http://127.0.0.1:9/hook", event_kinds: ["new_discussion", "new_comment"] } })
    await A.post("api/b2/memberships", { json: { group_id: group.id, emails: ["newcomer@example.org"] } })
    const d = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Budget", description: "The **costs** of the hall" } })).body as any).discussions[0]
    const c = ((await A.post("api/b2/comments", { json: { discussion_id: d.id, body: "Cheaper in spring" } })).body as any).comments[0]
    await A.post("api/b2/comments", { json: { discussion_id: d.id, body: "Agreed", parent_id: c.id } })
    await A.post("api/b2/reactions", { json: { reactable_type: "Comment", reactable_id: c.id, reaction: "👍" } })
    const p = ((await A.post("api/b2/polls", { json: { discussion_id: d.id, title: "Spring?", poll_type: "proposal", closing_at: future(24 * 365) } })).body as any).polls[0]
    await A.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { agree: 1 }, reason: "warmer" } })
    await A.post("api/b2/stances", { json: { poll_id: p.id, option_scores: { abstain: 1 } } })
    await A.post(`api/b2/polls/${p.id}/close`)
    await A.post("api/b2/outcomes", { json: { poll_id: p.id, statement: "Spring it is" } })
    return { filename, key: admin.apiKey, discussion: d.id, poll: p.id, reads: await reads(A, d.id, p.id) }
  } finally {
    await s.stop()
  }
}

const reads = async (A: Got, discussion: number, poll: number) => {
  const answers: Record<string, unknown> = {}
  for (const path of [`api/b2/discussions/${discussion}`, `api/b2/polls/${poll}`, "api/b2/groups", `api/b2/discussions/dSolar01`,
    "api/b2/search?query=cots", `api/b2/memberships?group_id=1`, "api/b3/users"]) {
    const r = await A.get(path)
    answers[path] = { status: r.statusCode, body: r.body }
  }
  return answers
}

t.test("a whole install copied SQLite → PostgreSQL → SQLite: every row kept, the server answers the same", async (t) => {
  const src = await source()
  const before = await contents(src.filename)
  t.ok(Object.values(before).filter((rows) => rows.length > 0).length >= 20, "a source with rows in most tables")
  t.ok(before.webhook_deliveries!.length > 0 && before.mail_outbox!.length > 0 && before.imports!.length === 1, "waiting deliveries and mail, an import")

  const { filename: pgUrl } = tempDbFile()
  const there = await runBin(["copy", "--from", src.filename, "--to", pgUrl, "--json"])
  t.equal(there.code, 0, there.stderr)
  const report = JSON.parse(there.stdout)
  t.same(Object.fromEntries(Object.entries(before).map(([k, rows]) => [k, rows.length])), Object.fromEntries(Object.keys(before).map((k) => [k, report.copied[k]])),
    "--json counts every table's rows")
  t.same(await contents(pgUrl), before, "PostgreSQL holds every row as the file did (ids, hashes, times, outboxes, counters)")

  const s = await spawnServe(pgUrl)
  t.teardown(() => s.stop())
  const A = api(s.url, src.key)
  t.same(await reads(A, src.discussion, src.poll), src.reads, "the same answers, with the same ids, to the same key (search included)")
  const more = await A.post("api/b2/comments", { json: { discussion_id: src.discussion, body: "Written on the copy" } })
  t.equal(more.statusCode, 200, "the copy takes writes: its ids go on past the copied ones")
  t.ok((more.body as any).comments[0].id > Math.max(...before.comments!.map((r) => JSON.parse(r).find(([k]: [string]) => k === "id")[1])))
  await s.stop()

  const onPg = await contents(pgUrl)
  const back = join(dir, "back.db")
  const home = await runHere(["copy", "--from", pgUrl, "--to", back])
  t.equal(home.code, 0, home.stderr)
  t.match(home.stdout, /^copied \d+ records from 127\.0\.0\.1:\d+\/t_\w+ to .*back\.db\n  users: \d+/)
  t.same(await contents(back), onPg, "and back into a new file: every row as PostgreSQL held it, the comment written there too")
  t.ok(onPg.comments!.some((r) => r.includes("Written on the copy")))
})

t.test("refusals: a target holding data, an unreachable target, a source from a newer convene; nothing written", async (t) => {
  const filename = join(dir, "small.db")
  const core = await openConvene({ database: filename })
  await core.users.create({ email: "one@example.org", name: "One" })
  await core.close()

  const { filename: full } = tempDbFile()
  t.equal((await runHere(["copy", "--from", filename, "--to", full])).code, 0)
  const held = await contents(full)
  const again = await runHere(["copy", "--from", filename, "--to", full])
  t.equal(again.code, 1)
  t.match(again.stderr, /^error: the target 127\.0\.0\.1:\d+\/t_\w+ holds data \(1 users\): copy into an empty database\n$/)
  t.same(await contents(full), held, "nothing written")

  const unreachable = await runHere(["copy", "--from", filename, "--to", "postgres://convene@127.0.0.1:1/convene"])
  t.equal(unreachable.code, 1)
  t.match(unreachable.stderr, /cannot connect to the database at 127\.0\.0\.1:1\/convene/)

  const newer = join(dir, "newer.db")
  const db = new Database(newer)
  db.pragma("user_version = 999")
  db.close()
  const target = join(dir, "never.db")
  const refused = await runHere(["copy", "--from", newer, "--to", target, "--json"])
  t.equal(refused.code, 1)
  t.match(JSON.parse(refused.stderr), { error: /has schema version 999, written by a newer convene/ })
  t.notOk(existsSync(target), "no target file made")

  const missing = await runHere(["copy", "--from", join(dir, "nothing.db"), "--to", target])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /there is no database .*nothing\.db/)
  t.notOk(existsSync(target))
  t.equal((await runHere(["copy", "--from", filename, "--to", filename])).code, 1, "not onto itself")
})

t.test("a copy into PostgreSQL that fails half-way writes nothing on the target", async (t) => {
  // PostgreSQL refuses a NUL in text, which SQLite holds: the copy into PostgreSQL fails at the comments, after the
  // users, groups and threads it has already written in its transaction
  const filename = join(dir, "nul.db")
  const core = await openConvene({ database: filename })
  const { user: ada, apiKey: key } = await core.users.create({ email: "ada@example.org", name: "Ada" })
  const { group } = await core.groups.create({ name: "Garden", owner: ada })
  await core.close()
  const served = await spawnServe(filename)
  const thread = ((await api(served.url, key).post("api/b2/discussions", { json: { group_id: group.id, title: "Compost" } })).body as any).discussions[0]
  t.equal((await api(served.url, key).post("api/b2/comments", { json: { discussion_id: thread.id, body: "Fine" } })).statusCode, 200)
  await served.stop()
  const db = new Database(filename)
  db.prepare("UPDATE comments SET body = ? WHERE discussion_id = ?").run("Fi\u0000ne", thread.id)
  db.close()

  const { filename: target } = tempDbFile()
  const failed = await runHere(["copy", "--from", filename, "--to", target])
  t.equal(failed.code, 1, failed.stdout)
  t.match(failed.stderr, /^error: .*0x00/m, "the engine's reason, once")
  const written = await openSql(target)
  t.same(await written.sql("SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM groups) AS groups, (SELECT count(*) FROM discussions) AS discussions, (SELECT count(*) FROM comments) AS comments"),
    [{ users: 0, groups: 0, discussions: 0, comments: 0 }], "nothing written on the target")
  await written.close()
  const again = await runHere(["copy", "--from", filename, "--to", target])
  t.match(again.stderr, /0x00/, "tried again: refused for the same row, not as a target holding data")
})

t.test("on a terminal, a bar shows the records copied; in a pipe, the result alone", async (t) => {
  const filename = join(dir, "terminal.db")
  const core = await openConvene({ database: filename })
  for (let i = 0; i < 3; i++) await core.users.create({ email: `p${i}@example.org`, name: `P${i}` })
  await core.close()
  const { filename: target } = tempDbFile()
  // util-linux `script` gives the command a terminal (a pseudo-terminal) and records what it showed
  const shown = execFileSync("script", ["-qec", `${process.execPath} ${BIN} copy --from ${filename} --to ${target}`, "/dev/null"], { env: childEnv(), encoding: "utf8" })
  t.match(shown, /copying \[[\u2588\u2591 ]+\] 100% 3\/3 users/, "the bar, as far as the last table")
  t.match(shown, /copied 3 records from .*terminal\.db to 127\.0\.0\.1:\d+\/t_\w+/)
  const piped = await runBin(["copy", "--from", filename, "--to", tempDbFile().filename])
  t.equal(piped.code, 0)
  t.notMatch(piped.stderr + piped.stdout, /copying \[/, "no bar in a pipe")
})

