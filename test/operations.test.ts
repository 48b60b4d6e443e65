/**
 * Operations (decisions §6): /healthz answers 503 when the database does not answer; a database written by a
 * newer convene is refused naming both versions; every open error names the file; backup and restore;
 * doctor; redelivering webhooks; the warnings serve prints at start.
 */
import { Attachments, DatabaseError, directoryStorage, FileStorage, loadAccess, makeConvene, makeSqliteStore, migrations } from "@convene/core"
import { Effect } from "effect"
import { startServer } from "@convene/http"
import Database from "better-sqlite3"
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { Readable } from "node:stream"
import { join } from "node:path"
import t from "tap"
import { startS3 } from "./s3.js"
import { deliveriesSettled, runHere, spawnServe, tempDbFile } from "./helpers.js"
import { matchExact } from "./match.js"
import { startReceiver } from "./receiver.js"
import { startSmtp } from "./smtp.js"


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
  const listed = await runHere(["users", "list", "--db", filename])
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
  const notDb = await runHere(["users", "list", "--db", filename])
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
  const listed = await runHere(["members", "list", "--group", "board", "--json", "--db", filename])
  t.equal(listed.code, 0, listed.stderr)
  matchExact(t, JSON.parse(listed.stdout), [{ user_id: ada.user.id, admin: true }, { user_id: bob.user.id, accepted_at: null }])
  t.match((await runHere(["members", "list", "--group", "board", "--db", filename])).stdout, /^membership \d+ group=\d+ user=\d+ admin\nmembership \d+ group=\d+ user=\d+ pending\n$/)
  const shown = await runHere(["groups", "show", "board", "--json", "--db", filename])
  t.match(JSON.parse(shown.stdout), { id: group.id, handle: "board", memberships_count: 2, pending_memberships_count: 1 })
  const missing = await runHere(["groups", "show", "nope", "--json", "--db", filename])
  t.equal(missing.code, 1)
  t.equal(missing.stdout, "")
  t.same(JSON.parse(missing.stderr), { error: "Group nope not found" })
  t.match((await runHere(["groups", "show", "nope", "--db", filename])).stderr, /^error: Group nope not found\n$/, "plain text without --json")
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
  const backup = await runHere(["backup", "--to", target, "--json", "--db", s.filename])
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
  const again = await runHere(["backup", "--to", target, "--db", s.filename])
  t.equal(again.code, 1)
  t.match(again.stderr, /exists: choose a new file/)
  t.match((await runHere(["backup", "--to", `${target}2`, "--db", `${s.filename}.missing`])).stderr, /no database at/)
})

t.test("convene backup copies the files its database names, and restore puts them back", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const c = makeConvene({ filename })
  const ada = await c.users.create({ email: "ada@example.org", name: "Ada" })
  // files beside the database, where serve keeps them without STORAGE_DIR
  const storage = directoryStorage(join(dir, "files"))
  const bytes = randomBytes(5000)
  const file = await c.run(Effect.provideService(Effect.flatMap(loadAccess(ada.user), (access) =>
    Effect.flatMap(Effect.promise(() => storage.receive(Readable.from([bytes]), 1 << 20)), (received) => Attachments.uploadFile(access, received, "ledger.bin"))), FileStorage, storage))
  await c.close()
  const backup = `${dir}/with-files.db`
  const done = await runHere(["backup", "--to", backup, "--json", "--db", filename])
  t.equal(done.code, 0, done.stderr)
  t.match(JSON.parse(done.stdout).files, { kind: "directory", copied: 1, missing: 0, to: `${backup}.files` })
  t.same(readFileSync(join(`${backup}.files`, file.blob.storage_key)), bytes, "the file is beside the backup")
  // the file lost, then the backup restored: it is back
  rmSync(join(dir, "files"), { recursive: true, force: true })
  const restored = await runHere(["restore", backup, "--yes", "--json", "--db", filename])
  t.equal(restored.code, 0, restored.stderr)
  t.equal(JSON.parse(restored.stdout).files_restored, 1)
  t.same(readFileSync(join(dir, "files", file.blob.storage_key)), bytes, "and back where files live")
})

t.test("convene restore puts a backup back, refusing while a server holds the database", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const c = makeConvene({ filename })
  const ada = await c.users.create({ email: "ada@example.org", name: "Ada" })
  await c.groups.create({ name: "Before", owner: ada.user })
  await c.close()
  const backup = `${dir}/before.db`
  t.equal((await runHere(["backup", "--to", backup, "--db", filename])).code, 0)

  // the database moves on after the backup
  const later = makeConvene({ filename })
  await later.groups.create({ name: "After", owner: ada.user })
  await later.close()
  const groupNames = (file: string) => {
    const db = new Database(file, { readonly: true })
    try {
      return (db.prepare("SELECT name FROM groups ORDER BY id").all() as Array<{ name: string }>).map((g) => g.name)
    } finally {
      db.close()
    }
  }
  t.same(groupNames(filename), ["Before", "After"])

  const unconfirmed = await runHere(["restore", backup, "--db", filename])
  t.equal(unconfirmed.code, 2, "replacing a database wants --yes")
  t.match(unconfirmed.stderr, /--yes/)

  const s = await spawnServe(filename)
  const refused = await runHere(["restore", backup, "--yes", "--json", "--db", filename])
  t.equal(refused.code, 1)
  t.match(JSON.parse(refused.stderr), { error: /is in use .*convene serve.*stop the server/ })
  t.same(groupNames(filename), ["Before", "After"], "nothing changed while the server ran")
  t.equal(await s.stop(), 0)

  const restored = await runHere(["restore", backup, "--yes", "--json", "--db", filename])
  t.equal(restored.code, 0, restored.stderr)
  const result = JSON.parse(restored.stdout)
  t.match(result, { from: backup, to: filename, schema_version: migrations.length, previous: /before-restore-/ })
  t.same(groupNames(filename), ["Before"], "the backup's contents are back")
  t.same(groupNames(result.previous), ["Before", "After"], "and the replaced database is saved beside it")

  // the restored database serves
  const again = await spawnServe(filename)
  t.equal((await fetch(`${again.url}/healthz`)).status, 200)
  t.equal(await again.stop(), 0)

  writeFileSync(`${dir}/junk.db`, "not a database at all".repeat(50))
  const junk = await runHere(["restore", `${dir}/junk.db`, "--yes", "--db", filename])
  t.equal(junk.code, 1)
  t.match(junk.stderr, /junk\.db/, "a file that is not a backup is refused, named")
  t.same(groupNames(filename), ["Before"])
  t.match((await runHere(["restore", `${dir}/missing.db`, "--yes", "--db", filename])).stderr, /no database at .*missing\.db/)
})

t.test("convene doctor: database, configuration, mail transport and outboxes", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const c = makeConvene({ filename })
  await c.users.create({ email: "ada@example.org", name: "Ada" })
  await c.close()
  const doctor = async (env: Record<string, string>) => {
    const { code, stdout, stderr } = await runHere(["doctor", "--json", "--db", filename], env)
    return { code, report: JSON.parse(stdout) as { ok: boolean; checks: Array<{ check: string; status: string; message: string }> }, stderr }
  }
  const smtp = await startSmtp()
  t.teardown(smtp.close)
  const healthy = await doctor({ SMTP_URL: smtp.url, BASE_URL: "https://convene.example.org" })
  t.equal(healthy.code, 0, JSON.stringify(healthy.report))
  t.equal(healthy.report.ok, true)
  matchExact(t, healthy.report.checks, [
    { check: "database", status: "ok", message: /schema version \d+, integrity ok/ },
    { check: "configuration", status: "ok", message: /https:\/\/convene\.example\.org/ },
    { check: "files", status: "ok", message: /files: not made yet; the first upload makes it/ },
    { check: "mail", status: "ok", message: /answered: 220 / },
    { check: "webhook outbox", status: "ok" },
    { check: "mail outbox", status: "ok" }
  ])
  t.equal(smtp.received.length, 0, "doctor sends nothing")

  const wrong = await doctor({ SMTP_URL: "smtp://127.0.0.1:1", B3_API_KEY: "short", HOST: "0.0.0.0" })
  t.equal(wrong.code, 1)
  t.equal(wrong.report.ok, false)
  matchExact(t, wrong.report.checks.filter((ch) => ch.status !== "ok"), [
    { check: "configuration", status: "warn", message: /B3_API_KEY has 5 characters/ },
    { check: "configuration", status: "warn", message: /HOST=0\.0\.0\.0 without BASE_URL/ },
    { check: "mail", status: "fail", message: /connection refused by 127\.0\.0\.1:1/ }
  ])
  matchExact(t, (await doctor({ BASE_URL: "notaurl" })).report.checks.filter((ch) => ch.check === "configuration"),
    [{ status: "warn", message: /BASE_URL=notaurl is not an absolute http\(s\) URL/ }])

  // where files live (decisions §14): a probe object written, read back and deleted, in a directory or on S3
  const filesCheck = async (env: Record<string, string>) => (await doctor(env)).report.checks.filter((ch) => ch.check === "files")
  const storageDir = join(dir, "kept-files")
  mkdirSync(storageDir)
  matchExact(t, await filesCheck({ STORAGE_DIR: storageDir }), [{ status: "ok", message: /kept-files: a probe object written, read back and deleted/ }])
  t.same(readdirSync(storageDir, { recursive: true }).filter((f) => !String(f).match(/^(probe|tmp)$/)), [], "the probe leaves nothing")
  matchExact(t, await filesCheck({ AWS_BUCKET: "b", AWS_ACCESS_KEY_ID: "k" }), [{ status: "fail", message: /AWS_SECRET_ACCESS_KEY is not/ }])
  const s3 = await startS3()
  t.teardown(s3.close)
  const aws = { AWS_BUCKET: s3.bucket, AWS_REGION: s3.region, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_ENDPOINT: s3.endpoint }
  matchExact(t, await filesCheck({ ...aws, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey }), [{ status: "ok", message: /^s3:\/\/convene-files at http:\/\/127\.0\.0\.1:\d+: a probe object written/ }])
  matchExact(t, await filesCheck({ ...aws, AWS_SECRET_ACCESS_KEY: "wrong" }), [{ status: "fail", message: /^s3:\/\/convene-files/ }])

  // a dead webhook delivery and mail that waits with no transport
  const db = new Database(filename)
  db.prepare(`INSERT INTO mail_outbox (kind, recipient_email, subject, body, path, created_at, next_attempt_at) VALUES ('group_invitation', 'x@example.org', 's', 'b', '/g/x', ?, ?)`)
    .run(new Date().toISOString(), new Date().toISOString())
  db.close()
  const backlog = await doctor({})
  t.equal(backlog.code, 1)
  t.match(backlog.report.checks.find((ch) => ch.check === "mail outbox"), { status: "warn", message: /1 waiting and no mail transport configured/ })

  writeFileSync(`${dir}/junk.db`, "not a database".repeat(100))
  const { code: junk, stdout: out } = await runHere(["doctor", "--db", `${dir}/junk.db`])
  t.equal(junk, 1)
  t.match(out, /^fail database: cannot open the database .*junk\.db: .*not a database/m)
})

t.test("convene webhooks redeliver sends failed or dead deliveries again", async (t) => {
  const { startTestServer, seedUser } = await import("./helpers.js")
  let up = false
  const receiver = await startReceiver(() => ({ status: up ? 200 : 500 }))
  t.teardown(receiver.close)
  const s = await startTestServer({ allowPrivateWebhooks: true }, { worker: { retryDelaysMs: [], pollMs: 20 } })
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const { group } = await s.convene.groups.create({ name: "Hooks", owner: ada.user })
  const A = s.as(ada.apiKey)
  t.equal((await A.post("api/b2/chatbots", { json: { group_id: group.id, name: "r", server: receiver.url, event_kinds: ["new_discussion"] } })).statusCode, 200)
  t.equal((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "One" } })).statusCode, 200)
  t.equal((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Two" } })).statusCode, 200)
  await receiver.waitFor(2)
  const dead = async () => {
    for (let i = 0; i < 100; i++) {
      const rows = (await s.sql<{ id: number; status: string }>("SELECT id, status FROM webhook_deliveries ORDER BY id"))
      if (rows.every((r) => r.status === "dead")) return rows
      await new Promise((r) => setTimeout(r, 20))
    }
    throw new Error("deliveries did not die")
  }
  const [first, second] = await dead()
  const usage = await runHere(["webhooks", "redeliver", "--db", s.filename])
  t.equal(usage.code, 2, "ids or --dead")
  t.equal((await runHere(["webhooks", "redeliver", "abc", "--db", s.filename])).code, 2)

  up = true
  const one = await runHere(["webhooks", "redeliver", String(first!.id), "--json", "--db", s.filename])
  t.equal(one.code, 0, one.stderr)
  t.same(JSON.parse(one.stdout), { redelivered: 1 })
  s.worker!.kick()
  await receiver.waitFor(3)
  await deliveriesSettled(s.sql)
  t.same((await s.sql("SELECT status FROM webhook_deliveries ORDER BY id")), [{ status: "done" }, { status: "dead" }], "only the one named")
  const all = await runHere(["webhooks", "redeliver", "--dead", "--db", s.filename])
  t.match(all.stdout, /^1 delivery will be sent again\n$/)
  s.worker!.kick()
  await receiver.waitFor(4)
  await deliveriesSettled(s.sql)
  t.same((await s.sql("SELECT status FROM webhook_deliveries WHERE id = ?", second!.id)), [{ status: "done" }])
  t.same(JSON.parse((await runHere(["webhooks", "redeliver", "--dead", "--json", "--db", s.filename])).stdout), { redelivered: 0 })
})

t.test("serve warns at start about a configuration that is probably wrong", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const s = await spawnServe(filename, { B3_API_KEY: "sixteen-chars-xx", HOST: "0.0.0.0" })
  t.teardown(() => s.stop("SIGKILL"))
  await new Promise((r) => setTimeout(r, 100))
  t.match(s.stderr(), /warning: B3_API_KEY has 16 characters; the Server API \(\/api\/b3\) stays off/)
  t.match(s.stderr(), /warning: HOST=0\.0\.0\.0 without BASE_URL/)
  t.equal((await fetch(`${s.url.replace("0.0.0.0", "127.0.0.1")}/api/b3/users`, { headers: { authorization: "Bearer sixteen-chars-xx" } })).status, 403, "and b3 is indeed off")
  t.equal(await s.stop(), 0)
  const quiet = await spawnServe(filename, { B3_API_KEY: "seventeen-chars-x", BASE_URL: "https://convene.example.org" })
  t.teardown(() => quiet.stop("SIGKILL"))
  t.notMatch(quiet.stderr(), /warning/)
  t.equal(await quiet.stop(), 0)
})
