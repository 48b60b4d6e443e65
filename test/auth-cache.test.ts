/**
 * The authenticated user is cached by key hash and the people documents name by id (sqlite/users.ts), and a
 * user's memberships by user (sqlite/memberships.ts); no cache outlives a change: a rotated key, a
 * deactivated, redacted or deleted user is refused at once, a renamed or redacted person is named anew at
 * once, and a membership added or revoked counts at once, whether the change came through this server,
 * another connection (the command line or another process), or, on an in-memory database, the same
 * connection.
 */
import { Effect } from "effect"
import { Auth, makeConvene, openConvene, Memberships, Store, Users } from "@convene/core"
import t, { type Test } from "tap"
import { runHere, seedUser, startTestServer } from "./helpers.js"


t.test("every change to a key's owner reaches the cache at once", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const status = async (key: string) => (await s.as(key).get("api/b2/groups")).statusCode
  t.equal(await status(ada.apiKey), 200)
  t.equal(await status(ada.apiKey), 200, "served again (from the cache)")
  t.equal(await status("not-a-key-at-all"), 403)

  // rotation on another connection (the command line), as another process would do it
  const rotated = await runHere(["users", "api-key", String(ada.user.id), "--rotate", "--json", "--db", s.filename])
  t.equal(rotated.code, 0)
  const newKey = JSON.parse(rotated.stdout).api_key as string
  t.equal(await status(ada.apiKey), 403, "the rotated key is refused at once")
  t.equal(await status(newKey), 200)

  // deactivation and reactivation through this server's own b3 API
  t.equal((await s.b3.post(`api/b3/users/${ada.user.id}/deactivate`)).statusCode, 200)
  t.equal(await status(newKey), 403, "a deactivated user is refused at once")
  t.equal((await s.b3.post(`api/b3/users/${ada.user.id}/reactivate`)).statusCode, 200)
  t.equal(await status(newKey), 200, "and welcome again once reactivated")

  // a rename changes nothing about access, and is seen
  t.equal((await runHere(["users", "update", String(ada.user.id), "--name", "Ada L", "--db", s.filename])).code, 0)
  t.equal(await status(newKey), 200)
  const me = (await s.as(newKey).get("api/b2/groups")).statusCode
  t.equal(me, 200)

  // redaction (b3) and deletion (command line) of other users
  const bob = await seedUser(s.convene, { name: "Bob" })
  const cy = await seedUser(s.convene, { name: "Cy" })
  t.equal(await status(bob.apiKey), 200)
  t.equal(await status(cy.apiKey), 200)
  t.equal((await s.b3.post(`api/b3/users/${bob.user.id}/redact`)).statusCode, 200)
  t.equal(await status(bob.apiKey), 403, "a redacted user is refused at once")
  t.equal((await runHere(["users", "delete", String(cy.user.id), "--yes", "--db", s.filename])).code, 0)
  t.equal(await status(cy.apiKey), 403, "a deleted user is refused at once")
})

t.test("an in-memory database (one connection) sees its own changes too", async (t) => {
  const c = makeConvene({ filename: ":memory:" })
  t.teardown(c.close)
  const { user, apiKey } = await c.users.create({ email: "ada@example.org", name: "Ada" })
  t.equal((await c.authenticate(apiKey)).id, user.id)
  t.equal((await c.authenticate(apiKey)).id, user.id)
  const { apiKey: newKey } = await c.run(Users.rotateApiKey({ id: user.id }))
  await t.rejects(c.authenticate(apiKey), "the rotated key is refused")
  t.equal((await c.authenticate(newKey)).id, user.id)
  await c.users.deactivate({ id: user.id })
  t.equal(await c.run(Effect.either(Auth.authenticate(newKey))).then((r) => r._tag), "Left", "a deactivated user is refused")
})

t.test("a key's owner, kept for a turn's snapshot, is read again once this process commits a change", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  // one fiber, no turn between the first read and the rotation: the owner is kept for the open snapshot
  const result = await s.convene.run(Effect.gen(function*() {
    const before = yield* Auth.authenticate(ada.apiKey)
    const again = yield* Auth.authenticate(ada.apiKey)
    yield* Users.rotateApiKey({ id: ada.user.id })
    const after = yield* Effect.either(Auth.authenticate(ada.apiKey))
    return { before: before.id, again: again.id, after: after._tag }
  }))
  t.same(result, { before: ada.user.id, again: ada.user.id, after: "Left" }, "the old key is refused right after the commit")
})

/** A server where Ada started a discussion in her group; Bob is a member only when asked. */
const adasThread = async (t: Test, bobIsMember: boolean) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const bob = await seedUser(s.convene, { name: "Bob" })
  const { group } = await s.convene.groups.create({ name: "Cached", owner: ada.user })
  if (bobIsMember) await s.convene.members.add({ group, user: bob.user })
  const { discussion } = await s.convene.as(ada.user).startDiscussion({ group_id: group.id, title: "Ada's thread", description: "x" })
  return { s, ada, bob, group, discussion }
}

t.test("a member's memberships are cached, and every change to them counts at once", async (t) => {
  const { s, bob, group, discussion } = await adasThread(t, false)
  const status = async () => (await s.as(bob.apiKey).get(`api/b2/discussions/${discussion.id}`)).statusCode
  t.equal(await status(), 403, "not a member")
  t.equal(await status(), 403, "still not (from the cache)")

  // another connection adds Bob, as another process would
  const other = await openConvene({ database: s.filename })
  await other.members.add({ group, user: bob.user })
  await other.close()
  t.equal(await status(), 200, "a membership added elsewhere counts at once")
  t.equal(await status(), 200, "and again (from the cache)")

  // this server's own core revokes it
  await s.convene.run(Memberships.removeMember(group, bob.user))
  t.equal(await status(), 403, "a revoked membership is refused at once")
})

t.test("an in-memory database sees its own membership changes too", async (t) => {
  const c = makeConvene({ filename: ":memory:" })
  t.teardown(c.close)
  const ada = await c.users.create({ email: "ada@example.org", name: "Ada" })
  const bob = await c.users.create({ email: "bob@example.org", name: "Bob" })
  const { group } = await c.groups.create({ name: "Cached", owner: ada.user })
  const { discussion } = await c.as(ada.user).startDiscussion({ group_id: group.id, title: "Members only", description: "x" })
  const show = () => c.as(bob.user).discussion(String(discussion.id)).then(() => "shown", () => "refused")
  t.equal(await show(), "refused")
  t.equal(await show(), "refused")
  await c.members.add({ group, user: bob.user })
  t.equal(await show(), "shown", "the new membership counts at once")
  await c.run(Memberships.removeMember(group, bob.user))
  t.equal(await show(), "refused", "the revocation counts at once")
})

t.test("the people a document names are cached, and a change to one shows at once", async (t) => {
  const { s, ada, bob, discussion } = await adasThread(t, true)
  const author = async () => {
    const res = await s.as(bob.apiKey).get(`api/b2/discussions/${discussion.id}`)
    t.equal(res.statusCode, 200)
    return (res.body as unknown as { users: Array<{ id: number; name: string }> }).users.find((u) => u.id === ada.user.id)?.name
  }
  t.equal(await author(), "Ada")
  t.equal(await author(), "Ada", "named again (from the cache)")

  // renamed on another connection (the command line), as another process would do it
  t.equal((await runHere(["users", "update", String(ada.user.id), "--name", "Ada L", "--db", s.filename])).code, 0)
  t.equal(await author(), "Ada L", "a rename elsewhere shows at once")

  // redacted through this server's own b3 API
  t.equal((await s.b3.post(`api/b3/users/${ada.user.id}/redact`)).statusCode, 200)
  t.equal(await author(), "Anonymous", "a redaction shows at once")
})

t.test("an in-memory database names people as they are now too", async (t) => {
  const c = makeConvene({ filename: ":memory:" })
  t.teardown(c.close)
  const ada = await c.users.create({ email: "ada@example.org", name: "Ada" })
  const bob = await c.users.create({ email: "bob@example.org", name: "Bob" })
  const names = () => c.run(Effect.map(Effect.flatMap(Store, (store) => store.users.byIds([bob.user.id, ada.user.id, ada.user.id])), (us) => us.map((u) => u.name)))
  t.same(await names(), ["Ada", "Bob"], "by id, each once")
  t.same(await names(), ["Ada", "Bob"], "again (from the cache)")
  const write = <A>(f: (store: Store["Type"]) => Effect.Effect<A>) => c.run(Effect.flatMap(Store, (store) => store.transaction(f(store))))
  await write((store) => store.users.update(ada.user.id, { name: "Ada L", updated_at: new Date().toISOString() }))
  t.same(await names(), ["Ada L", "Bob"], "the rename shows at once")
  await write((store) => store.users.delete(bob.user.id))
  t.same(await names(), ["Ada L"], "a deleted person is no longer named")
})
