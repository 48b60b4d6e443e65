/**
 * Operations (decisions §6), the first pieces: /healthz answers 503 when the database does not answer; a
 * database written by a newer convene is refused naming both versions; every open error names the file.
 */
import { DatabaseError, makeConvene, makeSqliteStore, migrations } from "@convene/core"
import { startServer } from "@convene/http"
import { runCli } from "@convene/cli"
import Database from "better-sqlite3"
import { rmSync, writeFileSync } from "node:fs"
import t from "tap"
import { tempDbFile } from "./helpers.js"

const cli = async (args: ReadonlyArray<string>) => {
  let stdout = ""
  let stderr = ""
  const code = await runCli(args, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), env: { CONVENE_DB: "" }, exitCode: 0 })
  return { code, stdout, stderr }
}

t.test("/healthz is 503 when the database does not answer", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const store = makeSqliteStore(filename)
  const server = await startServer({ store, port: 0, host: "127.0.0.1", settings: { b3ApiKey: undefined, baseUrl: "http://convene.test", maxBodyBytes: 65536, version: "t" } })
  t.teardown(server.close)
  const up = await fetch(`${server.url}/healthz`)
  t.equal(up.status, 200)
  t.same(await up.json(), { ok: true })
  store.close()
  const down = await fetch(`${server.url}/healthz`)
  t.equal(down.status, 503)
  t.same(await down.json(), { ok: false })
})

t.test("a database from a newer convene is refused, naming both versions and the file", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await makeConvene({ filename }).close()
  const db = new Database(filename)
  db.pragma("user_version = 99")
  db.close()
  t.throws(() => makeSqliteStore(filename), new DatabaseError(
    `the database ${filename} has schema version 99, written by a newer convene; this convene knows versions up to ${migrations.length}. ` +
      "Upgrade convene, or restore a backup made before the upgrade."
  ))
  const listed = await cli(["users", "list", "--db", filename])
  t.equal(listed.code, 1)
  t.match(listed.stderr, new RegExp(`schema version 99.*up to ${migrations.length}`))
  const raw = new Database(filename, { readonly: true })
  t.equal(raw.pragma("user_version", { simple: true }), 99, "and left untouched")
  raw.close()
})

t.test("open errors name the file", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(filename, "this is not a database, just text that is long enough to have a header".repeat(20))
  const notDb = await cli(["users", "list", "--db", filename])
  t.equal(notDb.code, 1)
  t.match(notDb.stderr, new RegExp(`cannot (open|prepare) the database ${filename.replace(/[.]/g, "\\.")}: .*not a database`))
})

t.test("the command line: members list, groups show, and --json errors as JSON on stderr", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const c = makeConvene({ filename })
  const ada = await c.users.create({ email: "ada@example.org", name: "Ada" })
  const bob = await c.users.create({ email: "bob@example.org", name: "Bob" })
  const { group } = await c.groups.create({ name: "Board", owner: ada.user, handle: "board" })
  await c.members.add({ group, user: bob.user, pending: true })
  await c.close()
  const listed = await cli(["members", "list", "--group", "board", "--json", "--db", filename])
  t.equal(listed.code, 0, listed.stderr)
  t.match(JSON.parse(listed.stdout), [{ user_id: ada.user.id, admin: true }, { user_id: bob.user.id, accepted_at: null }])
  t.match((await cli(["members", "list", "--group", "board", "--db", filename])).stdout, /^membership \d+ group=\d+ user=\d+ admin\nmembership \d+ group=\d+ user=\d+ pending\n$/)
  const shown = await cli(["groups", "show", "board", "--json", "--db", filename])
  t.match(JSON.parse(shown.stdout), { id: group.id, handle: "board", memberships_count: 2, pending_memberships_count: 1 })
  const missing = await cli(["groups", "show", "nope", "--json", "--db", filename])
  t.equal(missing.code, 1)
  t.equal(missing.stdout, "")
  t.same(JSON.parse(missing.stderr), { error: "Group nope not found" })
  t.match((await cli(["groups", "show", "nope", "--db", filename])).stderr, /^error: Group nope not found\n$/, "plain text without --json")
})

t.test("convene backup copies a database while the server writes, and checks the copy", async (t) => {
  const { startTestServer, seedUser } = await import("./helpers.js")
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const { group } = await s.convene.groups.create({ name: "Busy", owner: ada.user })
  const A = s.as(ada.apiKey)
  let writing = true
  let written = 0
  const writer = (async () => {
    while (writing) {
      if ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: `Thread ${written}` } })).statusCode === 200) written++
    }
  })()
  await new Promise((r) => setTimeout(r, 200))
  const target = `${s.filename}.backup`
  const backup = await cli(["backup", "--to", target, "--json", "--db", s.filename])
  writing = false
  await writer
  t.equal(backup.code, 0, backup.stderr)
  t.match(JSON.parse(backup.stdout), { to: target, integrity: "ok", schema_version: migrations.length })
  const copy = new Database(target, { readonly: true })
  const threads = (copy.prepare("SELECT count(*) AS n FROM discussions").get() as { n: number }).n
  const topics = (copy.prepare("SELECT count(*) AS n FROM topics").get() as { n: number }).n
  copy.close()
  t.ok(threads > 0 && threads <= written, `a consistent moment: ${threads} of ${written} threads`)
  t.equal(topics, threads, "every discussion with its thread: no half-written write")
  const again = await cli(["backup", "--to", target, "--db", s.filename])
  t.equal(again.code, 1)
  t.match(again.stderr, /exists: choose a new file/)
  t.match((await cli(["backup", "--to", `${target}2`, "--db", `${s.filename}.missing`])).stderr, /no database at/)
})
