/**
 * Importing a large Loomio group export (issue: 1,000 members, 2,000 discussions, 50,000 comments and 100,000
 * stances in under 30 s, streaming, memory bounded). Writes the export in Loomio's format, then times
 * `convene import loomio FILE` (the real binary, under /usr/bin/time for its peak resident memory) on a fresh
 * database, beside a bare baseline: the same file streamed, every line parsed and inserted into one SQLite
 * table in one transaction (the floor of reading the file once into the database).
 *
 *   npx tsc -b && node bench/import.js        (SCALE=0.1 for a quick run)
 */
import Database from "better-sqlite3"
import { execFileSync, spawnSync } from "node:child_process"
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { once } from "node:events"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"

const SCALE = Number(process.env.SCALE ?? 1)
const N = {
  members: Math.round(1_000 * SCALE),
  discussions: Math.round(2_000 * SCALE),
  comments: Math.round(50_000 * SCALE),
  polls: 0,
  stances: Math.round(100_000 * SCALE)
}
// one ballot per member per poll
N.polls = Math.max(Math.round(200 * SCALE), Math.ceil(N.stances / N.members))
const BIN = join(process.cwd(), "packages/cli/bin/convene.js")
const at = (i) => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString()

const writeExport = async (file) => {
  const out = createWriteStream(file)
  let lines = 0
  const put = async (table, record) => {
    lines++
    if (!out.write(JSON.stringify({ table, record }) + "\n")) await once(out, "drain")
  }
  await put("groups", { id: 1, key: "benchGrp", name: "Big group", parent_id: null, is_visible_to_public: false, created_at: at(0), updated_at: at(0) })
  for (let u = 1; u <= N.members; u++) {
    await put("users", { id: u, name: `Member ${u}`, email: `member${u}@bench.example`, created_at: at(0), updated_at: at(0) })
  }
  let eventId = 0
  const seq = new Map()
  const event = (discussion, kind, type, id, user, parent, time) => {
    const s = (seq.get(discussion) ?? 0) + 1
    seq.set(discussion, s)
    return put("events", { id: ++eventId, kind, eventable_type: type, eventable_id: id, user_id: user, discussion_id: discussion, sequence_id: s, parent_id: parent, created_at: at(time) })
  }
  const roots = new Map()
  for (let d = 1; d <= N.discussions; d++) {
    roots.set(d, eventId + 1)
    await put("events", { id: ++eventId, kind: "new_discussion", eventable_type: "Discussion", eventable_id: d, user_id: 1 + (d % N.members), discussion_id: d, sequence_id: null, parent_id: null, created_at: at(d) })
  }
  const commentEvent = new Map()
  for (let c = 1; c <= N.comments; c++) {
    const d = 1 + (c % N.discussions)
    const replyTo = c > N.discussions * 2 && c % 3 === 0 ? c - N.discussions : null
    const parent = replyTo === null ? roots.get(d) : commentEvent.get(replyTo)
    await event(d, "new_comment", "Comment", c, 1 + (c % N.members), parent, 10_000 + c)
    commentEvent.set(c, eventId)
  }
  for (let p = 1; p <= N.polls; p++) {
    await event(p, "poll_created", "Poll", p, 1, roots.get(p), 200_000 + p)
  }
  for (let m = 1; m <= N.members; m++) {
    await put("memberships", { id: m, group_id: 1, user_id: m, admin: m === 1, accepted_at: at(0), created_at: at(0), updated_at: at(0) })
  }
  for (let d = 1; d <= N.discussions; d++) {
    await put("discussions", { id: d, group_id: 1, key: `bd${d}`, author_id: 1 + (d % N.members), title: `Discussion ${d}`, description: `What shall we do about item ${d}?`, private: true, created_at: at(d), updated_at: at(d) })
  }
  for (let p = 1; p <= N.polls; p++) {
    await put("polls", { id: p, key: `bp${p}`, discussion_id: p, group_id: 1, author_id: 1, title: `Proposal ${p}`, poll_type: "proposal", closing_at: at(300_000), closed_at: at(300_000), hide_results: 0, created_at: at(200_000 + p), updated_at: at(200_000 + p) })
  }
  const names = ["agree", "abstain", "disagree", "block"]
  for (let p = 1; p <= N.polls; p++) {
    for (let o = 0; o < 4; o++) await put("poll_options", { id: (p - 1) * 4 + o + 1, poll_id: p, name: names[o], priority: o })
  }
  const perPoll = Math.ceil(N.stances / N.polls)
  let stanceId = 0
  const choices = []
  for (let p = 1; p <= N.polls; p++) {
    for (let v = 0; v < perPoll && stanceId < N.stances; v++) {
      stanceId++
      await put("stances", { id: stanceId, poll_id: p, participant_id: 1 + (v % N.members), latest: true, cast_at: at(250_000 + stanceId), reason: v % 10 === 0 ? `Because ${v}` : null, created_at: at(250_000), updated_at: at(250_000 + stanceId) })
      choices.push([stanceId, (p - 1) * 4 + 1 + (v % 4)])
    }
  }
  for (const [s, o] of choices) await put("stance_choices", { id: s, stance_id: s, poll_option_id: o, score: 1 })
  for (let c = 1; c <= N.comments; c++) {
    const d = 1 + (c % N.discussions)
    const replyTo = c > N.discussions * 2 && c % 3 === 0 ? c - N.discussions : null
    await put("comments", { id: c, discussion_id: d, parent_id: replyTo ?? d, parent_type: replyTo === null ? "Discussion" : "Comment", user_id: 1 + (c % N.members), body: `Comment number ${c} on the budget and the plan.`, body_format: "md", created_at: at(10_000 + c), updated_at: at(10_000 + c) })
  }
  out.end()
  await once(out, "close")
  return lines
}

/** The floor: stream the file, parse each line, insert it into one table, one transaction. */
const baseline = async (file, dbFile) => {
  const db = new Database(dbFile)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = FULL")
  db.exec("CREATE TABLE lines (n INTEGER PRIMARY KEY, tbl TEXT, old_id INTEGER, record TEXT)")
  const insert = db.prepare("INSERT INTO lines (n, tbl, old_id, record) VALUES (?, ?, ?, ?)")
  const started = performance.now()
  db.exec("BEGIN")
  let n = 0
  for await (const line of createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity })) {
    const { table, record } = JSON.parse(line)
    insert.run(++n, table, record.id ?? null, JSON.stringify(record))
  }
  db.exec("COMMIT")
  const ms = performance.now() - started
  db.close()
  return ms
}

const dir = process.env.KEEP_DIR ?? mkdtempSync(join(tmpdir(), "convene-import-bench-"))
try {
  const file = join(dir, "export.jsonl")
  const lines = await writeExport(file)
  const mb = statSync(file).size / 1e6
  console.log(`export: ${lines} lines, ${mb.toFixed(1)} MB (${JSON.stringify(N)})`)

  const bareMs = await baseline(file, join(dir, "baseline.db"))

  const dbFile = join(dir, "convene.db")
  execFileSync(process.execPath, [BIN, "init", "--db", dbFile, "--admin-email", "admin@bench.example", "--admin-name", "Admin"], { stdio: "ignore" })
  const started = performance.now()
  const run = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, BIN, "import", "loomio", file, "--json", "--db", dbFile], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
  const ms = performance.now() - started
  if (run.status !== 0) throw new Error(run.stderr)
  const report = JSON.parse(run.stdout)
  // /usr/bin/time -f %M: the peak resident set of the import process, in KiB
  const peakMb = Number(run.stderr.trim().split("\n").pop()) / 1024
  const rows = [
    ["import (convene import loomio)", `${(ms / 1000).toFixed(1)} s`, (ms / bareMs).toFixed(2), `${peakMb.toFixed(0)} MB`],
    ["bare: stream + parse + insert each line", `${(bareMs / 1000).toFixed(1)} s`, "1.00"]
  ]
  console.table(rows)
  console.log("imported:", JSON.stringify(report.imported))
  const results = join(process.cwd(), "bench/results")
  mkdirSync(results, { recursive: true })
  writeFileSync(join(results, "import.json"), JSON.stringify({ at: new Date().toISOString(), N, lines, mb, ms, bareMs, ratio: ms / bareMs, peakMb, imported: report.imported }, null, 2) + "\n")
} finally {
  if (process.env.KEEP_DIR === undefined) rmSync(dir, { recursive: true, force: true })
}
