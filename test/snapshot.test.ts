/**
 * Reads outside a transaction share one snapshot per turn of the event loop, and a group row read in it is
 * kept for the rest of the turn (sqlite/db.ts). Neither may hide a commit: this process's own is seen at
 * once, in the same turn; another connection's (another process, the command line) by the next turn.
 */
import { Effect } from "effect"
import { Groups, makeConvene, Store } from "@convene/core"
import t from "tap"
import { seedUser, startTestServer, tempDbFile } from "./helpers.js"

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

t.test("a request reads its own commit, in the same turn", async (t) => {
  const { filename } = tempDbFile()
  const c = makeConvene({ filename })
  t.teardown(c.close)
  const { user } = await seedUser(c)
  const view = await c.run(Groups.createGroup({ name: "Before", owner: user }))
  const id = view.group.id
  const names = await c.run(Effect.gen(function*() {
    const store = yield* Store
    const first = yield* store.groups.byId(id)
    yield* store.transaction(store.groups.update(id, { name: "After", updated_at: new Date().toISOString() }))
    // resumed right after COMMIT, possibly before the turn ends
    const second = yield* store.groups.byId(id)
    const counted = yield* store.groups.withCounts([id])
    return [first?.name, second?.name, counted[0]?.group.name]
  }))
  t.same(names, ["Before", "After", "After"])

  // another reader opens the turn's snapshot while the write waits for its batch to commit
  const after = await c.run(Effect.gen(function*() {
    const store = yield* Store
    yield* store.transaction(store.groups.update(id, { name: "Fourth", updated_at: new Date().toISOString() }))
    return (yield* store.groups.byId(id))?.name
  }).pipe(Effect.zip(Effect.flatMap(Store, (store) => store.groups.byId(id)), { concurrent: true })))
  t.equal(after[0], "Fourth", "read after its own commit, with another reader in the same turn")
})

t.test("another connection's commit is seen by the next turn, kept row or not", async (t) => {
  const { filename } = tempDbFile()
  const c = makeConvene({ filename })
  const other = makeConvene({ filename })
  t.teardown(async () => {
    await other.close()
    await c.close()
  })
  const { user } = await seedUser(c)
  const id = (await c.run(Groups.createGroup({ name: "One", owner: user }))).group.id
  const name = () => c.run(Effect.flatMap(Store, (store) => store.groups.byId(id))).then((g) => g?.name)
  t.equal(await name(), "One")
  await other.run(Effect.flatMap(Store, (store) =>
    store.transaction(store.groups.update(id, { name: "Two", updated_at: new Date().toISOString() }))))
  await nextTurn()
  t.equal(await name(), "Two", "the row kept in the earlier turn is gone")
})

t.test("through the server: a write answered by one request is read by the next", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const { user, apiKey } = await seedUser(s.convene)
  const id = (await s.convene.run(Groups.createGroup({ name: "Readers", owner: user }))).group.id
  const api = s.as(apiKey)
  const created = await api.post("api/b2/discussions", { json: { group_id: id, title: "First" } })
  t.equal(created.statusCode, 200)
  for (let i = 0; i < 5; i++) {
    const [posted, group] = await Promise.all([
      api.post("api/b2/discussions", { json: { group_id: id, title: `Thread ${i}` } }),
      api.get(`api/b2/groups/${id}`)
    ])
    t.equal(posted.statusCode, 200)
    t.equal(group.statusCode, 200)
    const after = await api.get(`api/b2/groups/${id}`)
    t.equal((after.body as unknown as { groups: Array<{ discussions_count: number }> }).groups[0]!.discussions_count, i + 2, "the count includes every answered write")
  }
  // and another connection's write is seen by the next request
  const other = makeConvene({ filename: s.filename })
  await other.run(Effect.flatMap(Store, (store) =>
    store.transaction(store.groups.update(id, { name: "Renamed", updated_at: new Date().toISOString() }))))
  await other.close()
  const renamed = await api.get(`api/b2/groups/${id}`)
  t.equal((renamed.body as unknown as { groups: Array<{ name: string }> }).groups[0]!.name, "Renamed")
})
