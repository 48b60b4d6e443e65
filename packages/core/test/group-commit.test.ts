/**
 * The SQLite runner's durability promises, seen from another connection: the write connection runs with
 * synchronous = FULL in WAL mode; the transactions of one batch share one COMMIT (counted in the write-ahead
 * log itself: one commit frame for the batch, one per transaction run one after another); and a COMMIT that
 * fails fails every caller of its batch, with none of their rows kept.
 */
import Database from "better-sqlite3"
import { Effect } from "effect"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t, { type Test } from "tap"
import { makeRunner, openConnections } from "../src/sqlite/db.js"

/**
 * The COMMITs in the write-ahead log since it was last reset: frames that end a transaction carry the database's
 * size after the commit (non-zero) and the log header's salts (frames of an earlier generation do not).
 */
const commitsInWal = (filename: string) => {
  const wal = existsSync(`${filename}-wal`) ? readFileSync(`${filename}-wal`) : Buffer.alloc(0)
  if (wal.length < 32) return 0
  const pageSize = wal.readUInt32BE(8)
  const [salt1, salt2] = [wal.readUInt32BE(16), wal.readUInt32BE(20)]
  let commits = 0
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break
    if (wal.readUInt32BE(at + 4) !== 0) commits++
  }
  return commits
}

const fresh = (t: Test) => {
  const dir = mkdtempSync(join(tmpdir(), "convene-commit-"))
  const filename = join(dir, "t.db")
  const conns = openConnections(filename)
  const run = makeRunner(conns)
  const other = new Database(filename, { readonly: true })
  t.teardown(() => {
    other.close()
    run.close()
    rmSync(dir, { recursive: true, force: true })
  })
  // the log emptied, so that what follows is all it holds
  const resetWal = () => conns.write.pragma("wal_checkpoint(TRUNCATE)")
  const commits = () => commitsInWal(filename)
  const users = () => (other.prepare("SELECT email FROM users ORDER BY id").all() as Array<{ email: string }>).map((r) => r.email)
  const now = new Date().toISOString()
  const addUser = (email: string) =>
    run.transaction(run.write((_, s) =>
      s("INSERT INTO users (email, api_key_hash, created_at, updated_at) VALUES (?, ?, ?, ?)").run(email, `hash-${email}`, now, now)))
  return { run, resetWal, commits, users, addUser }
}

t.test("the write connection: synchronous = FULL, WAL", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "convene-commit-"))
  const conns = openConnections(join(dir, "t.db"))
  t.teardown(() => {
    conns.close()
    rmSync(dir, { recursive: true, force: true })
  })
  t.equal(conns.write.pragma("synchronous", { simple: true }), 2, "FULL (2): every COMMIT is on disk before it returns")
  t.equal(conns.write.pragma("journal_mode", { simple: true }), "wal")
  t.equal(conns.write.pragma("foreign_keys", { simple: true }), 1)
})

t.test("one batch, one COMMIT; transactions one after another, one COMMIT each", async (t) => {
  const { resetWal, commits, users, addUser } = fresh(t)
  resetWal()
  await Effect.runPromise(Effect.all(Array.from({ length: 10 }, (_, i) => addUser(`batch${i}@example.org`)), { concurrency: "unbounded" }))
  t.equal(commits(), 1, "ten concurrent transactions: one commit in the log")
  t.equal(users().length, 10, "all ten committed, as another connection sees")
  resetWal()
  for (let i = 0; i < 3; i++) await Effect.runPromise(addUser(`alone${i}@example.org`))
  t.equal(commits(), 3, "three in turn: three commits")
})

t.test("a failed COMMIT fails every caller of its batch and keeps none of their rows", async (t) => {
  const { run, users, addUser } = fresh(t)
  // a body that succeeds but leaves a deferred foreign-key violation: the batch's COMMIT refuses it
  const dangling = run.transaction(run.write((db, s) => {
    db.pragma("defer_foreign_keys = ON")
    s("INSERT INTO memberships (group_id, user_id, created_at, updated_at) VALUES (987654, 987654, ?, ?)").run(new Date().toISOString(), new Date().toISOString())
  }))
  const exits = await Effect.runPromise(Effect.all([
    Effect.exit(addUser("first@example.org")),
    Effect.exit(dangling),
    Effect.exit(addUser("third@example.org"))
  ], { concurrency: "unbounded" }))
  t.same(exits.map((e) => e._tag), ["Failure", "Failure", "Failure"], "all three callers are told")
  for (const e of exits) t.match(String(e._tag === "Failure" ? e.cause : ""), /cannot commit to the database .*FOREIGN KEY constraint failed/)
  t.same(users(), [], "no row of the batch was kept")
  await Effect.runPromise(addUser("after@example.org"))
  t.same(users(), ["after@example.org"], "and the next transaction commits")
})
