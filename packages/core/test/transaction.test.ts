import { Effect, Fiber, TestClock, TestContext } from "effect"
import t from "tap"
import { invalid, makeConvene, Store, Users } from "@convene/core"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const files = new WeakMap<object, string>()
const dbFileOf = (convene: object) => files.get(convene)!

const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), "convene-core-"))
  const convene = makeConvene({ filename: join(dir, "t.db") })
  files.set(convene, join(dir, "t.db"))
  return { convene, cleanup: async () => { await convene.close(); rmSync(dir, { recursive: true, force: true }) } }
}

const countUsers = Effect.flatMap(Store, (s) => s.users.count({}))

t.test("Store.transaction", async (t) => {
  const { convene, cleanup } = fresh()
  t.teardown(cleanup)
  const { user } = await convene.users.create({ email: "a@example.org" })

  t.test("a failing use case leaves nothing behind", async (t) => {
    const failing = Effect.flatMap(Store, (store) =>
      store.transaction(Effect.gen(function*() {
        yield* Users.createUser({ email: "b@example.org" })
        yield* store.users.update(user.id, { name: "changed" })
        return yield* invalid("anything", "fails after writing")
      })))
    t.match(await convene.run(failing).then(() => undefined, (e: unknown) => e), { _tag: "Invalid" })
    t.equal(await convene.run(countUsers), 1)
    t.equal((await convene.users.show({ id: user.id })).user.name, null)
  })

  t.test("a defect rolls back too", async (t) => {
    const dying = Effect.flatMap(Store, (store) =>
      store.transaction(Effect.zipRight(Users.createUser({ email: "c@example.org" }), Effect.dieMessage("boom"))))
    await t.rejects(convene.run(dying))
    t.equal(await convene.run(countUsers), 1)
  })

  t.test("an interrupted transaction rolls back and frees the write permit", async (t) => {
    const program = Effect.gen(function*() {
      const store = yield* Store
      const fiber = yield* Effect.fork(store.transaction(Effect.zipRight(Users.createUser({ email: "d@example.org" }), Effect.never)))
      yield* Effect.sleep("10 millis")
      yield* Fiber.interrupt(fiber)
      // the permit is free again: another transaction commits
      yield* Users.createUser({ email: "e@example.org" })
      return yield* countUsers
    })
    t.equal(await convene.run(program), 2)
    t.same((await convene.run(Effect.flatMap(Store, (s) => s.users.byEmail("d@example.org")))), undefined)
  })

  t.test("writes outside a transaction are refused", async (t) => {
    await t.rejects(convene.run(Effect.flatMap(Store, (s) => s.users.update(user.id, { name: "x" }))))
  })

  t.test("readers outside the transaction do not see uncommitted rows", async (t) => {
    const program = Effect.gen(function*() {
      const store = yield* Store
      const seenInside: Array<number> = []
      const seenOutside: Array<number> = []
      const writer = yield* Effect.fork(store.transaction(Effect.gen(function*() {
        yield* Users.createUser({ email: "f@example.org" })
        seenInside.push(yield* countUsers)
        yield* Effect.sleep("20 millis")
      })))
      yield* Effect.sleep("5 millis")
      seenOutside.push(yield* countUsers)
      yield* Fiber.join(writer)
      seenOutside.push(yield* countUsers)
      return { seenInside, seenOutside }
    })
    const r = await convene.run(program)
    t.same(r.seenInside, [3])
    t.same(r.seenOutside, [2, 3])
  })

  t.test("concurrent transactions are serialised", async (t) => {
    const n = await convene.run(Effect.gen(function*() {
      yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => Users.createUser({ email: `many${i}@example.org` })),
        { concurrency: "unbounded" }
      )
      return yield* countUsers
    }))
    t.equal(n, 23)
  })
})

t.test("concurrent use cases share a commit; a failing one leaves the others committed and itself absent", async (t) => {
const { convene, cleanup } = fresh()
t.teardown(cleanup)
  const create = (email: string, fail: boolean) =>
    Effect.flatMap(Store, (store) =>
      store.transaction(Effect.gen(function*() {
        yield* Users.createUser({ email })
        if (fail) return yield* invalid("email", "refused after writing")
        return email
      })))
  const before = await convene.run(countUsers)
  const results = await convene.run(Effect.all([
    Effect.exit(create("g1@example.org", false)),
    Effect.exit(create("g2@example.org", true)),
    Effect.exit(create("g3@example.org", false)),
    Effect.exit(Effect.flatMap(Store, (store) => store.transaction(Effect.zipRight(Users.createUser({ email: "g4@example.org" }), Effect.dieMessage("boom")))))
  ], { concurrency: "unbounded" }))
  t.same(results.map((r) => r._tag), ["Success", "Failure", "Success", "Failure"])
  t.equal(await convene.run(countUsers), before + 2)
  const emails = await convene.run(Effect.flatMap(Store, (s) => Effect.all(["g1", "g2", "g3", "g4"].map((n) => s.users.byEmail(`${n}@example.org`)))))
  t.same(emails.map((u) => u !== undefined), [true, false, true, false], "the failed ones are absent, the others committed")
  // and a reader on another connection sees the committed ones: they were durable before the callers resumed
  const { default: Database } = await import("better-sqlite3")
  const other = new Database(dbFileOf(convene), { readonly: true })
  t.same((other.prepare("SELECT email FROM users WHERE email LIKE 'g_@example.org' ORDER BY email").all() as Array<{ email: string }>).map((r) => r.email), ["g1@example.org", "g3@example.org"])
  other.close()
})

t.test("time comes from the Clock (TestClock drives it)", async (t) => {
  const { convene, cleanup } = fresh()
  t.teardown(cleanup)
  const program = Effect.gen(function*() {
    yield* TestClock.setTime(Date.parse("2019-01-02T03:04:05.000Z"))
    return yield* Users.createUser({ email: "clock@example.org" })
  }).pipe(Effect.provide(TestContext.TestContext))
  const { user } = await convene.run(program)
  t.equal(user.created_at, "2019-01-02T03:04:05.000Z")
})
