/**
 * PostgreSQL: a light read (`GET /api/b2/discussions/{id}`) in two round trips (issue 28 asks for at most three): the
 * caches' epochs once for the request; the discussion with its thread, its group and the caller's place in the
 * thread in one statement. The key's owner, the caller's memberships and the people named come from the
 * caches the epochs vouch for. A round trip is counted as the driver sees it: statements sent while none is
 * in flight start one, statements sent while another is in flight join it.
 */
import { People, Store } from "@convene/core"
import { Effect } from "effect"
import got from "got"
import pg from "pg"
import t from "tap"
import { seedUser, startTestServer, future } from "./helpers.js"

interface Trip {
  readonly statements: Array<string>
}
/** Every statement any pg connection of this process sends, grouped into round trips, while `recording`. */
const watch = () => {
  const trips: Array<Trip> = []
  let inFlight = 0
  let recording = false
  const query = pg.Client.prototype.query as (...args: Array<unknown>) => unknown
  pg.Client.prototype.query = function (this: pg.Client, ...args: Array<unknown>) {
    if (!recording) return query.apply(this, args)
    const config = args[0] as string | { text: string }
    if (inFlight === 0) trips.push({ statements: [] })
    trips.at(-1)!.statements.push(typeof config === "string" ? config : config.text)
    inFlight++
    const done = () => void inFlight--
    const last = args.length - 1
    if (typeof args[last] === "function") {
      const callback = args[last] as (...r: Array<unknown>) => void
      args[last] = (...r: Array<unknown>) => {
        done()
        callback(...r)
      }
      return query.apply(this, args)
    }
    const result = query.apply(this, args) as Promise<unknown>
    result.then(done, done)
    return result
  } as never
  return {
    record: async <A>(f: () => Promise<A>) => {
      trips.length = 0
      recording = true
      try {
        await f()
      } finally {
        recording = false
      }
      return [...trips]
    },
    restore: () => void (pg.Client.prototype.query = query as never)
  }
}

t.test("a light read on PostgreSQL: two round trips, the caches trusted by their epochs", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const bob = await seedUser(s.convene, { name: "Bob" })
  const group = (await s.convene.groups.create({ name: "Council", owner: ada.user })).group
  await s.convene.members.add({ group, user: bob.user })
  const started = await s.as(ada.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: "Budget", private: true } })
  t.equal(started.statusCode, 200)
  const id = (started.body as any).discussions[0].id as number
  const watcher = watch()
  t.teardown(watcher.restore)
  const read = () => s.as(bob.apiKey).get(`api/b2/discussions/${id}`)

  const first = await read()
  t.equal(first.statusCode, 200)
  const trips = await watcher.record(async () => {
    const res = await read()
    t.equal(res.statusCode, 200)
    t.same(res.body, first.body, "the same document as the read before")
  })
  t.equal(trips.length, 2, `${trips.length} round trips: ${JSON.stringify(trips.map((trip) => trip.statements.map((q) => q.slice(0, 60))))}`)
  const statements = trips.flatMap((trip) => trip.statements)
  t.match(statements[0], /FROM cache_epochs/, "the epochs first, before any cached row is trusted")
  t.match(statements[1], /LEFT JOIN topic_readers tr ON tr\.topic_id = t\.id AND tr\.user_id = \$1/, "the caller's place in the thread read with the discussion")
  t.notOk(statements.some((q) => /FROM users|FROM memberships/.test(q)), "the key's owner, the memberships and the author come from the caches")

  // a poll is read with its thread and group too
  const poll = await s.as(ada.apiKey).post("api/b2/polls", {
    json: { discussion_id: id, poll_type: "proposal", title: "Adopt the budget", options: ["agree", "disagree"], closing_at: future(24 * 365) }
  })
  t.equal(poll.statusCode, 200, "the poll is made")
  const readPoll = () => s.as(bob.apiKey).get(`api/b2/polls/${(poll.body as any).polls[0].id}`)
  t.equal((await readPoll()).statusCode, 200)
  const pollTrips = await watcher.record(async () => t.equal((await readPoll()).statusCode, 200))
  t.notOk(pollTrips.flatMap((trip) => trip.statements).some((q) => /FROM (topics|groups) WHERE/.test(q)), "the poll's thread and group are not read again")

  // a write: the epochs as they stand after it are read in its COMMIT's round trip, not again after it
  const comment = await watcher.record(async () =>
    t.equal((await s.as(bob.apiKey).post("api/b2/comments", { json: { discussion_id: id, body: "Agreed." } })).statusCode, 200))
  const sent = comment.flatMap((trip) => trip.statements)
  t.equal(sent.filter((q) => /cache_epochs/.test(q)).length, 2, "the epochs before the write, and with its COMMIT")
  t.ok(sent.includes("COMMIT; SELECT name, value FROM cache_epochs"))
  // while the thread's row is held (writers to the thread wait), only the thread's read and the writes: the comment,
  // the thread's counter, its first item's count, the new item (its sequence found by its insert), the commenter's
  // reader read and written (writing is reading: decisions §13; read while the thread is held, so that two comments of
  // one person in turn both count), the live pages' event, the webhook event (its chatbots counted by it);
  // the discussion, group, reading state and loud listeners were read before
  const locked = sent.slice(sent.findIndex((q) => /FOR NO KEY UPDATE/.test(q)), sent.findIndex((q) => q.startsWith("COMMIT")) + 1)
  t.same(locked.map((q) => q.replace(/\s+/g, " ").replace(/^((?:SELECT \* FROM|INSERT INTO|UPDATE) \w+|COMMIT).*/, "$1")),
    ["SELECT * FROM topics", "INSERT INTO comments", "UPDATE topics", "UPDATE topic_items", "INSERT INTO topic_items", "SELECT * FROM topic_readers",
      "INSERT INTO topic_readers", "INSERT INTO live_events", "INSERT INTO webhook_events", "COMMIT"],
    "ten round trips while the thread's row is held")
  t.match(sent.at(-1), /^COMMIT/, "nothing read after it: the thread comes back from its counter's update, the caller's reader from its write")
  t.equal(sent.filter((q) => /FROM (chatbots|thread_volumes|topic_readers|groups) /.test(q) && !/^INSERT/.test(q)).length, 2,
    "the loud listeners read once, before the transaction (the reading state and volume came with the discussion), the reader again while the thread is held; no chatbots read")
  t.equal(sent.filter((q) => /LEFT JOIN topic_readers tr ON tr\.topic_id = t\.id/.test(q)).length, 1, "the discussion read once, with the caller's place in the thread")

  // a change on another connection (another server, a command) moves the epochs: the next read reads the
  // caller's memberships again, and sees the change
  await s.sql(`UPDATE memberships SET revoked_at = '2026-01-01T00:00:00.000Z' WHERE user_id = ?`, bob.user.id)
  const after = await watcher.record(async () => t.equal((await read()).statusCode, 403, "a revoked member is refused at once"))
  t.ok(after.flatMap((trip) => trip.statements).some((q) => /FROM memberships/.test(q)), "the memberships read again")

  // the core embedded: each call is a request of its own, which reads the epochs before it trusts cached memberships
  await s.convene.as(ada.user).groups()
  const embedded = (await watcher.record(() => s.convene.as(ada.user).groups())).flatMap((trip) => trip.statements)
  t.match(embedded[0], /FROM cache_epochs/, "an embedder's call reads the epochs first")
  t.notOk(embedded.some((q) => /FROM memberships WHERE user_id/.test(q)), "and finds the caller's memberships in the cache")
  // outside a request (a background job) every read is read: nothing cached is trusted
  const job = (await watcher.record(() => Effect.runPromise(Effect.provideService(Effect.flatMap(Store, (store) => store.users.byId(bob.user.id)), Store, s.convene.store))))
    .flatMap((trip) => trip.statements)
  t.same(job.map((q) => q.replace(/ .*/, "")), ["SELECT"], "one statement")
  t.match(job[0], /FROM users WHERE/, "the person read, no epochs")
})

t.test("a thread page marks what it shows read in one statement, and in none once nothing on it is new (decisions §13)", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const bob = await seedUser(s.convene, { name: "Bob" })
  const group = (await s.convene.groups.create({ name: "Readers", owner: ada.user })).group
  await s.convene.members.add({ group, user: bob.user })
  const d = ((await s.as(ada.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: "Read me" } })).body as any).discussions[0]
  for (let i = 0; i < 3; i++) await s.as(ada.apiKey).post("api/b2/comments", { json: { discussion_id: d.id, body: `Item ${i}` } })
  const session = await s.convene.run(Effect.flatMap(Store, (store) => store.transaction(People.startSession(bob.user.id))))
  const view = () => got(`${s.url}/d/${d.key}`, { headers: { cookie: `convene_session=${session}` }, throwHttpErrors: false })
  const watcher = watch()
  t.teardown(watcher.restore)
  const writes = (trips: Array<Trip>) => trips.flatMap((trip) => trip.statements).filter((q) => /^(INSERT|UPDATE|DELETE)/i.test(q.trim()))
  const first = await watcher.record(async () => t.equal((await view()).statusCode, 200))
  t.same(writes(first).map((q) => q.trim().replace(/^(INSERT INTO \w+).*/s, "$1")), ["INSERT INTO topic_readers"], "the first view: one statement marks its items read")
  const again = await watcher.record(async () => t.equal((await view()).statusCode, 200))
  t.same(writes(again), [], "viewed again with nothing new: none")
  await s.as(ada.apiKey).post("api/b2/comments", { json: { discussion_id: d.id, body: "Something new" } })
  const after = await watcher.record(async () => t.equal((await view()).statusCode, 200))
  t.equal(writes(after).length, 1, "something new on it: one statement again")
})
