import { Effect, Fiber, TestClock, TestContext } from "effect"
import t from "tap"
import { loadAccess, makeConvene, Outcomes, Polls, Scheduler, Stances, Store } from "@convene/core"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const HOUR = 3600_000
const T0 = Date.parse("2019-06-01T12:00:00.000Z")

t.test("scheduler: reminder 24 h before, close at closing time, outcome review; never twice", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "convene-sched-"))
  const filename = join(dir, "s.db")
  let convene = makeConvene({ filename })
  t.teardown(async () => { await convene.close(); rmSync(dir, { recursive: true, force: true }) })
  const { user: author } = await convene.users.create({ email: "author@example.org", name: "Author" })
  const { user: voter } = await convene.users.create({ email: "voter@example.org", name: "Voter" })
  const { group } = await convene.groups.create({ name: "G", owner: author })
  await convene.members.add({ group, user: voter })
  const at = (ms: number) => <A, E>(e: Effect.Effect<A, E, Store>) =>
    convene.run(Effect.zipRight(TestClock.setTime(ms), e).pipe(Effect.provide(TestContext.TestContext)))

  const view = await at(T0)(Effect.flatMap(loadAccess(author), (a) => Polls.createPoll(a, {
    group_id: group.id, title: "Lunch?", poll_type: "proposal", closing_at: new Date(T0 + 48 * HOUR).toISOString(), notify_on_closing_soon: "undecided_voters"
  })))
  await at(T0 + HOUR)(Effect.flatMap(loadAccess(author), (a) => Stances.castVote(a, { poll_id: view.poll.id, option_scores: { agree: 1 } })))

  t.same(await at(T0 + 2 * HOUR)(Scheduler.runScheduler), { expired: 0, reminded: 0, reviews: 0, digests: 0, purged: 0 }, "nothing due yet")
  t.same(await at(T0 + 25 * HOUR)(Scheduler.runScheduler), { expired: 0, reminded: 1, reviews: 0, digests: 0, purged: 0 }, "reminder inside the last 24 hours")
  t.same(await at(T0 + 26 * HOUR)(Scheduler.runScheduler), { expired: 0, reminded: 0, reviews: 0, digests: 0, purged: 0 }, "reminded once")
  const mail = await convene.run(Effect.flatMap(Store, (s) => s.mail.list(undefined, { limit: 100, offset: 0 })))
  t.same(mail.filter((m) => m.kind === "poll_closing_soon").map((m) => m.recipient_email), ["voter@example.org"], "only undecided voters")

  t.same(await at(T0 + 48 * HOUR)(Scheduler.runScheduler), { expired: 1, reminded: 0, reviews: 0, digests: 0, purged: 0 }, "closed at closing time")
  const closed = await convene.run(Effect.flatMap(Store, (s) => s.polls.byId(view.poll.id)))
  t.equal(closed!.closed_at, new Date(T0 + 48 * HOUR).toISOString())

  await at(T0 + 49 * HOUR)(Effect.flatMap(loadAccess(author), (a) => Outcomes.createOutcome(a, view.poll.id, { statement: "Lunch it is", review_on: "2019-06-10" })))
  t.same(await at(Date.parse("2019-06-09T23:00:00Z"))(Scheduler.runScheduler), { expired: 0, reminded: 0, reviews: 0, digests: 0, purged: 0 })
  t.same(await at(Date.parse("2019-06-10T00:30:00Z"))(Scheduler.runScheduler), { expired: 0, reminded: 0, reviews: 1, digests: 0, purged: 0 }, "review raised on its day")

  // a restart (a new process on the same file) finds nothing left to do
  await convene.close()
  convene = makeConvene({ filename })
  t.same(await at(Date.parse("2019-06-11T00:00:00Z"))(Scheduler.runScheduler), { expired: 0, reminded: 0, reviews: 0, digests: 0, purged: 0 }, "idempotent across restarts")
  const Database = (await import("better-sqlite3")).default
  const db = new Database(filename, { readonly: true })
  t.same(db.prepare("SELECT kind FROM webhook_events ORDER BY id").all().map((r: any) => r.kind),
    ["poll_created", "stance_created", "poll_closing_soon", "poll_expired", "outcome_created", "outcome_review_due"], "each event once, in order")
  db.close()
})

t.test("a voting period shorter than a day gets no reminder; the loop runs on its interval", async (t) => {
  const convene = makeConvene({ filename: ":memory:" })
  t.teardown(() => convene.close())
  const { user } = await convene.users.create({ email: "a@example.org" })
  const { group } = await convene.groups.create({ name: "G", owner: user })
  const program = Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const access = yield* loadAccess(user)
    const p = yield* Polls.createPoll(access, { group_id: group.id, title: "Quick", poll_type: "proposal", closing_at: new Date(T0 + 3 * HOUR).toISOString(), notify_on_closing_soon: "voters" })
    const fiber = yield* Effect.fork(Scheduler.schedulerLoop(60_000))
    yield* TestClock.adjust("2 hours")
    const store = yield* Store
    const mid = yield* store.polls.byId(p.poll.id)
    yield* TestClock.adjust("2 hours")
    const end = yield* store.polls.byId(p.poll.id)
    yield* Fiber.interrupt(fiber)
    return { mid, end }
  }).pipe(Effect.provide(TestContext.TestContext))
  const { mid, end } = await convene.run(program)
  t.equal(mid!.closing_soon_sent_at, null, "no reminder for a 3-hour poll")
  t.equal(mid!.closed_at, null)
  t.ok(end!.closed_at, "the loop closed it after closing time")
})
