/**
 * The PostgreSQL store over postgres.js instead of node-postgres, for bench/experiments/pg-drivers-server.js: the
 * same runner contract (packages/core/src/postgres/db.ts `PgRunner`: statements on a pooled connection or on the
 * fiber's transaction's, request-remembered reads, the caches' epochs, READ COMMITTED transactions retried on a
 * serialization failure or deadlock) and the same repositories above it, so the whole server can be measured on
 * either driver. Rows come back as the pg runner gives them (bigint as a number, booleans 0/1, instants as ISO
 * text, jsonb as compact text). An experiment, not a store convene ships: postgres.js is not a dependency
 * (`npm install --no-save postgres@3`).
 */
import { Cause, Duration, Effect, Exit, FiberRef, Option } from "effect"
// the pg runner's own translation of the repositories' placeholders (`?`, `@name`) and of their values
import { compile, isoInstant, migratePg, makePool, values } from "../../packages/core/dist/postgres/db.js"
import { pgClient } from "../../packages/core/dist/postgres/client.js"
import { rememberEntries, rememberedRead } from "../../packages/core/dist/sql/remembered.js"
import { makeReportsRepo, makeSearchRepo } from "../../packages/core/dist/postgres/reading.js"
import { makeRepositories } from "../../packages/core/dist/store/index.js"

const { default: postgres } = await import("postgres").catch(() => {
  console.error("postgres.js is not installed: npm install --no-save postgres@3")
  process.exit(1)
})

const same = (x) => x
/** What the pg runner's type parsers give (postgres/db.ts ROW_PARSERS). */
const types = {
  int8: { to: 20, from: [20], serialize: String, parse: Number },
  bool: { to: 16, from: [16], serialize: (x) => (x ? "t" : "f"), parse: (v) => (v === "t" ? 1 : 0) },
  instant: { to: 1184, from: [1184], serialize: same, parse: isoInstant },
  day: { to: 1082, from: [1082], serialize: same, parse: same },
  jsonb: { to: 3802, from: [3802], serialize: same, parse: (v) => (v.includes(" ") ? JSON.stringify(JSON.parse(v)) : v) }
}

class PgQueryError extends Error {
  constructor(code, message) {
    super(message)
    this.code = code
  }
}
const asDefect = (e) => new PgQueryError(e?.code, e?.message ?? String(e))
const failedWith = (cause) => Option.getOrUndefined(Option.flatMap(Cause.dieOption(cause), (d) => d instanceof PgQueryError ? Option.some(d.code ?? "") : Option.none()))

const current = FiberRef.unsafeMake(undefined)
const requestReads = FiberRef.unsafeMake(undefined)
const EPOCHS = "SELECT name, value FROM cache_epochs"
const epochsOf = (rows) => new Map(rows.map((row) => [row.name, row.value]))

const makeRunner = (reads, writes) => {
  const exec = (on, sql, params, answer) =>
    Effect.async((resume) => {
      const c = compile(sql)
      on.unsafe(c.text, values(c, params), { prepare: true }).then(
        (rows) => resume(Effect.succeed(answer(rows))),
        (e) => resume(Effect.die(asDefect(e))))
    })
  const statement = (sql, params, answer, write) =>
    Effect.withFiberRuntime((fiber) => {
      const on = fiber.getFiberRef(current)
      if (on === undefined && write) return Effect.dieMessage("write outside Store.transaction")
      return exec(on ?? reads, sql, params, answer)
    })
  const result = (rows) => ({ rows: [...rows], changes: rows.count ?? 0 })
  const query = (sql, ...params) => statement(sql, params, result, false)
  // the store's own: inside a request, outside a transaction
  const remembering = (fiber) => (fiber.getFiberRef(current) === undefined ? fiber.getFiberRef(requestReads) : undefined)
  const remember = (key, read) => Effect.withFiberRuntime((fiber) => rememberedRead(remembering(fiber), key, read))
  const plain = (on, sql) => Effect.async((resume) => on.unsafe(sql).simple().then((r) => resume(Effect.succeed(r)), (e) => resume(Effect.die(asDefect(e)))))
  const commit = (on) =>
    Effect.withFiberRuntime((fiber) => {
      const remembered = fiber.getFiberRef(requestReads)
      if (remembered === undefined) return Effect.asVoid(plain(on, "COMMIT"))
      // several statements in one simple query answer one result each
      return Effect.map(plain(on, `COMMIT; ${EPOCHS}`), (results) => {
        remembered.clear()
        remembered.set("cache_epochs", epochsOf(results.at(-1)))
      })
    })
  const reserve = Effect.async((resume) => writes.reserve().then((on) => resume(Effect.succeed(on)), (e) => resume(Effect.die(asDefect(e)))))
  const attempt = (effect) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(reserve, (on) => {
        const settle = (exit) =>
          Exit.isSuccess(exit) ? Effect.zipRight(commit(on), exit) : Effect.zipRight(Effect.catchAllDefect(Effect.asVoid(plain(on, "ROLLBACK")), () => Effect.void), exit)
        return Effect.zipRight(plain(on, "BEGIN ISOLATION LEVEL READ COMMITTED"), Effect.flatMap(Effect.exit(restore(Effect.locally(effect, current, on))), settle))
          .pipe(Effect.onExit(() => Effect.sync(() => on.release())))
      }))
  const transaction = (effect) =>
    Effect.flatMap(FiberRef.get(current), (on) => {
      if (on !== undefined) return effect
      const loop = (n) =>
        Effect.catchAllCause(attempt(effect), (cause) => {
          const code = failedWith(cause)
          if (!(code === "40001" || code === "40P01" || (code === "23505" && n < 2)) || n > 50) return Effect.failCause(cause)
          return Effect.zipRight(Effect.sleep(Duration.millis(Math.random() * Math.min(250, 2 ** n))), loop(n + 1))
        })
      return loop(0)
    })
  return {
    query,
    get: (sql, ...params) => statement(sql, params, (rows) => rows[0], false),
    all: (sql, ...params) => statement(sql, params, (rows) => [...rows], false),
    run: (sql, ...params) => statement(sql, params, result, true),
    transaction,
    request: (effect) => Effect.flatMap(FiberRef.get(requestReads), (remembered) => (remembered !== undefined ? effect : Effect.locally(effect, requestReads, new Map()))),
    remember,
    rememberBeside: (entries) => Effect.withFiberRuntime((fiber) => rememberEntries(remembering(fiber), entries)),
    cacheEpochs: Effect.withFiberRuntime((fiber) =>
      remembering(fiber) === undefined ? Effect.succeed(undefined) : remember("cache_epochs", Effect.map(query(EPOCHS), (r) => epochsOf(r.rows)))),
    inTransaction: Effect.map(FiberRef.get(current), (on) => on !== undefined),
    close: () => Promise.all([reads.end(), writes.end()]).then(() => undefined)
  }
}

/** The store `makePgStore` makes, over postgres.js (migrated by the pg migrator first, as convene does). */
export const makePgjsStore = async (url, poolSize = 10) => {
  const migrator = makePool(url, 1)
  await migratePg(migrator, url)
  await migrator.end()
  const options = { max: poolSize, types, connection: { TimeZone: "UTC", lock_timeout: 10000 }, onnotice: () => undefined }
  const q = makeRunner(postgres(url, options), postgres(url, options))
  return {
    transaction: q.transaction,
    request: q.request,
    ping: Effect.catchAllDefect(Effect.map(q.get("SELECT 1 AS ok"), (r) => r?.ok === 1), () => Effect.succeed(false)),
    ...makeRepositories(pgClient(q)),
    search: makeSearchRepo(q),
    reports: makeReportsRepo(q),
    close: () => q.close()
  }
}
