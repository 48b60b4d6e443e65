/**
 * Files moving with a group (decisions §14), through the real binary and the real servers on both stores:
 * `convene export --files DIR` writes the group's files beside the export under their hashes, `convene import
 * loomio --files DIR` attaches them on another server byte for byte; a Loomio export's files are found by filename
 * or download path, a missing one is counted and named while the import goes on, and nothing outside DIR is read.
 */
import t from "tap"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { openConvene } from "@convene/core"
import { runBin, runHere, startTestServer, type TestServer, tempDbFile } from "./helpers.js"
import { matchExact } from "./match.js"
import { type Line, loomioExport, writeJsonl } from "./loomio-fixture.js"

t.setTimeout(180_000)

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex")

/** A database with its administrator, made in this process (a command's start costs seconds on a busy machine). */
const init = async (filename: string) => {
  const c = await openConvene({ database: filename })
  try {
    const { user, apiKey } = await c.users.create({ email: "admin@convene.example", name: "Admin", is_admin: true })
    return { id: user.id, api_key: apiKey }
  } finally {
    await c.close()
  }
}

const upload = async (client: TestServer["api"], filename: string, bytes: Buffer) => {
  const boundary = `----convene${randomBytes(8).toString("hex")}`
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`
  const body = Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)])
  const res = await client.post("api/b2/attachments", { body, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } })
  if (res.statusCode !== 200) throw new Error(JSON.stringify(res.body))
  return (res.body as any).attachment.signed_id as string
}

/** The bytes of a file as its reader downloads them. */
const download = async (client: TestServer["api"], url: string) => {
  const res = await client.get(url.replace(/^\//, ""), { responseType: "buffer" })
  return { status: res.statusCode, bytes: res.body as Buffer }
}

t.test("export --files, then import --files on another server: the files come along byte for byte", async (t) => {
  const a = tempDbFile()
  const b = tempDbFile()
  const out = join(a.dir, "moving")
  t.teardown(() => {
    rmSync(a.dir, { recursive: true, force: true })
    rmSync(b.dir, { recursive: true, force: true })
  })
  const adminA = await init(a.filename)
  const adminB = await init(b.filename)
  const s = await startTestServer({}, { filename: a.filename })
  t.teardown(s.close)
  const A = s.as(adminA.api_key)
  const admin = (await s.convene.users.show({ id: adminA.id })).user
  const { group } = await s.convene.groups.create({ name: "Moving house", owner: admin })
  const { group: other } = await s.convene.groups.create({ name: "Not moving", owner: admin })

  const budget = randomBytes(300_000)
  const notes = Buffer.from("minutes of the first meeting\n")
  const d = ((await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Plans", files: [await upload(A, "budget.ods", budget)] } })).body as any).discussions[0]
  const c = await A.post("api/b2/comments", { json: { discussion_id: d.id, body: "", files: [await upload(A, "notes.txt", notes), await upload(A, "budget copy.ods", budget)] } })
  t.equal(c.statusCode, 200, JSON.stringify(c.body))
  const closing = new Date(Date.now() + 48 * 3600_000).toISOString()
  const p = await A.post("api/b2/polls", { json: { discussion_id: d.id, title: "Move?", poll_type: "proposal", closing_at: closing, files: [await upload(A, "notes.txt", notes)] } })
  t.equal(p.statusCode, 200, JSON.stringify(p.body))
  const elsewhere = randomBytes(1000)
  await A.post("api/b2/discussions", { json: { group_id: other.id, title: "Stays", files: [await upload(A, "private.bin", elsewhere)] } })

  // delegated voting's settings travel with the group (convene's additions to the group's line)
  t.equal((await A.patch(`api/b2/groups/${group.id}`, { json: { members_can_delegate: true, delegation_limit: 3 } })).statusCode, 200)
  const file = join(a.dir, "export.jsonl")
  const exported = await runBin(["export", group.key, "--to", file, "--files", out, "--json", "--db", a.filename], { STORAGE_DIR: s.filesDir })
  t.equal(exported.code, 0, exported.stderr)
  const report = JSON.parse(exported.stdout)
  t.equal(report.records.attachments, 4, "one line per file of a record")
  t.same(report.files, { written: 2, present: 0, missing: [] }, "each content once")
  t.same(readdirSync(out).sort(), [sha(budget), sha(notes)].sort(), "named by their hashes; the other group's file is not among them")
  t.equal(sha(readFileSync(join(out, sha(budget)))), sha(budget))
  const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((l) => l.table === "attachments")
  matchExact(t, lines.map((l) => [l.record.record_type, l.record.filename, l.record.key]), [
    ["Comment", "notes.txt", sha(notes)],
    ["Comment", "budget copy.ods", sha(budget)],
    ["Discussion", "budget.ods", sha(budget)],
    ["Poll", "notes.txt", sha(notes)]
  ], "Loomio's attachment lines, with the key of their bytes")

  // exported again into the same directory: what it holds is kept
  const again = await runHere(["export", group.key, "--to", join(a.dir, "again.jsonl"), "--files", out, "--json", "--db", a.filename], { STORAGE_DIR: s.filesDir })
  t.same(JSON.parse(again.stdout).files, { written: 0, present: 2, missing: [] })

  const s2 = await startTestServer({}, { filename: b.filename })
  t.teardown(s2.close)
  const imported = await runHere(["import", "loomio", file, "--files", out, "--json", "--db", b.filename], { STORAGE_DIR: s2.filesDir })
  t.equal(imported.code, 0, imported.stderr)
  const result = JSON.parse(imported.stdout)
  t.same(result.files, { attached: 4, missing: [] })
  t.same(result.warnings, [])

  const B = s2.as(adminB.api_key)
  t.match(((await B.get(`api/b2/groups/${group.key}`)).body as any).groups[0], { members_can_delegate: true, delegation_limit: 3 }, "delegation's settings came along")
  const thread = ((await B.get(`api/b2/discussions/${d.key}`)).body as any).discussions[0]
  matchExact(t, thread.attachments, [{ filename: "budget.ods", byte_size: budget.length }], "the discussion's file")
  const items = (await B.get(`api/b2/threads/${thread.topic_id}/items`)).body as any
  const comment = items.comments[0]
  matchExact(t, comment.attachments.map((f: any) => f.filename), ["notes.txt", "budget copy.ods"], "the comment's files, in their order")
  t.equal(sha((await download(B, comment.attachments[1].download_url)).bytes), sha(budget), "downloaded on the new server: the same bytes")
  t.equal(sha((await download(B, thread.attachments[0].download_url)).bytes), sha(budget))
  const poll = ((await B.get(`api/b2/polls/${(p.body as any).polls[0].key}`)).body as any).polls[0]
  t.equal((await download(B, poll.attachments[0].download_url)).bytes.toString(), notes.toString())
  t.same(await s2.sql("SELECT count(*) AS n FROM blobs"), [{ n: 2 }], "kept once per content there too")
})

/** The Loomio fixture with files: one found by name, one by its download path, one the directory lacks. */
const withFiles = (): Array<Line> => [
  ...loomioExport(),
  { table: "attachments", record: { id: 10, record_type: "Poll", record_id: 601, name: "files", filename: "minutes v2.txt", path: "/rails/active_storage/blobs/redirect/eyJf--1a2b/minutes%20v2.txt" } },
  { table: "attachments", record: { id: 11, record_type: "Discussion", record_id: 401, name: "files", filename: "budget.ods" } },
  { table: "attachments", record: { id: 12, record_type: "Group", record_id: 101, name: "logo", filename: "logo.png" } },
  // a name that would leave the directory: never read
  { table: "attachments", record: { id: 13, record_type: "Discussion", record_id: 402, name: "files", filename: "../outside.txt", path: "/../../outside.txt" } }
]

t.test("a Loomio export's files: found by filename or path, one missing is named, and the import goes on", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await init(filename)
  const s = await startTestServer({}, { filename })
  t.teardown(s.close)
  const bo = await s.convene.users.create({ email: "bo@loomio.example", name: "Bo here" })
  const file = join(dir, "export.jsonl")
  writeJsonl(file, withFiles())
  const lineOf = (id: number) => withFiles().findIndex((l) => l.table === "attachments" && l.record.id === id) + 1
  const files = join(dir, "loomio-files")
  const plan = Buffer.from("%PDF-1.4 the plan\n")
  const minutes = Buffer.from("we met, we agreed\n")
  mkdirSync(files)
  writeFileSync(join(files, "plan.pdf"), plan)
  const byPath = join(files, "rails/active_storage/blobs/redirect/eyJf--1a2b/minutes v2.txt")
  mkdirSync(dirname(byPath), { recursive: true })
  writeFileSync(byPath, minutes)
  writeFileSync(join(dir, "outside.txt"), "not the import's to read")
  const env = { STORAGE_DIR: s.filesDir }
  const missing = [`line ${lineOf(11)}: budget.ods`, `line ${lineOf(13)}: ../outside.txt`]

  await t.test("--dry-run finds them, says so, and writes nothing", async (t) => {
    const r = await runHere(["import", "loomio", file, "--files", files, "--dry-run", "--db", filename], env)
    t.equal(r.code, 0, r.stderr)
    t.match(r.stdout, `files: 2 found, 2 missing from the directory:\n  ${missing[0]}\n  ${missing[1]}\n`)
    t.same(await s.sql("SELECT count(*) AS n FROM attachments"), [{ n: 0 }])
    t.same(readdirSync(s.filesDir), [], "no bytes kept")
  })

  await t.test("without --files: the files are counted as left behind and said", async (t) => {
    const r = await runHere(["import", "loomio", file, "--json", "--dry-run", "--db", filename], env)
    t.equal(r.code, 0, r.stderr)
    const report = JSON.parse(r.stdout)
    t.equal(report.skipped.attachments, 4, "the four files of discussions, comments and polls")
    t.match(report.warnings.join("\n"), /4 files the export names were left behind: give --files DIR/)
  })

  await t.test("a directory that is not there: refused before anything is written", async (t) => {
    const r = await runHere(["import", "loomio", file, "--files", join(dir, "nowhere"), "--db", filename], env)
    t.equal(r.code, 1)
    t.match(r.stderr, /no directory at .*nowhere/)
    t.same(await s.sql("SELECT count(*) AS n FROM imports"), [{ n: 0 }])
  })

  const r = await runHere(["import", "loomio", file, "--files", files, "--json", "--db", filename], env)
  t.equal(r.code, 0, r.stderr)
  const report = JSON.parse(r.stdout)
  t.same(report.files, { attached: 2, missing }, "the missing ones named by line and filename")
  t.equal(report.skipped["attachments (of Group)"], 1, "a group's logo has no place here")
  t.equal(report.skipped.attachments, undefined)
  t.equal(report.imported.comments, 4, "the records are all there")

  // Bo (matched by e-mail) wrote the comment the plan is on: it is his file, and a member downloads it
  const Bo = s.as(bo.apiKey)
  const discussion = ((await Bo.get("api/b2/discussions/dSolar01")).body as any).discussions[0]
  t.same(discussion.attachments, [], "the discussion's file was missing: none attached")
  const comment = ((await Bo.get(`api/b2/threads/${discussion.topic_id}/items`)).body as any).comments.find((c: any) => c.body.includes("let"))
  matchExact(t, comment.attachments, [{ filename: "plan.pdf", content_type: "application/pdf", byte_size: plan.length }])
  const got = await download(Bo, comment.attachments[0].download_url)
  t.equal(got.status, 200)
  t.equal(got.bytes.toString(), plan.toString())
  const [row] = await s.sql<any>("SELECT uploader_id FROM attachments WHERE filename = 'plan.pdf'")
  t.equal(row.uploader_id, bo.user.id, "uploaded, as it were, by the comment's author")
  const poll = ((await Bo.get("api/b2/polls/pSolar01")).body as any).polls[0]
  t.equal((await download(Bo, poll.attachments[0].download_url)).bytes.toString(), minutes.toString(), "found by its download path")
  t.equal(readdirSync(s.filesDir, { recursive: true }).filter((f) => String(f).includes("outside")).length, 0)
})

t.test("a file whose bytes are not its key's: refused as missing, named with the reason; the import goes on", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await init(filename)
  const files = join(dir, "files")
  mkdirSync(files)
  const meant = Buffer.from("the minutes as exported\n")
  // the directory holds other bytes under the key of the exported ones (a file changed, or swapped)
  writeFileSync(join(files, sha(meant)), "something else entirely\n")
  const lines: Array<Line> = [...loomioExport(), { table: "attachments", record: { id: 20, record_type: "Poll", record_id: 601, name: "files", filename: "minutes.txt", key: sha(meant) } }]
  const file = join(dir, "export.jsonl")
  writeJsonl(file, lines)
  const r = await runHere(["import", "loomio", file, "--files", files, "--json", "--db", filename], { STORAGE_DIR: join(dir, "store") })
  t.equal(r.code, 0, r.stderr)
  const report = JSON.parse(r.stdout)
  const plan = lines.findIndex((l) => l.table === "attachments" && l.record.filename === "plan.pdf") + 1
  matchExact(t, report.files, {
    attached: 0,
    missing: [`line ${plan}: plan.pdf`, `line ${lines.length}: minutes.txt (${join(files, sha(meant))} does not hold the bytes of its key)`]
  }, "the fixture's plan is not in this directory; the minutes' bytes are not theirs")
  t.equal(report.imported.polls, loomioExport().filter((l) => l.table === "polls").length, "the records are all there")
  const store = join(dir, "store")
  t.same(existsSync(store) ? readdirSync(store, { recursive: true }).filter((f) => !statSync(join(store, String(f))).isDirectory()) : [], [], "no bytes kept")
})
