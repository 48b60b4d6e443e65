import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"

t.test("GET /api/b2/groups and /groups/{id}", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const bob = await seedUser(s.convene, { name: "Bob" })
  const eve = await seedUser(s.convene, { name: "Eve", is_admin: true })
  const parent = await s.convene.groups.create({ name: "Parent", owner: ada.user, handle: "parent-org" })
  const child = await s.convene.groups.create({ name: "Child", owner: ada.user, parent: parent.group })
  const secret = await s.convene.groups.create({ name: "Secret", owner: bob.user })
  const open = await s.convene.groups.create({ name: "Open", owner: bob.user, public: true })
  await s.convene.members.add({ group: child.group, user: bob.user, delegate: true })
  await s.convene.members.add({ group: child.group, user: eve.user, pending: true })

  t.test("lists every group with a live membership, with exact counters", async (t) => {
    const res = await s.as(ada.apiKey).get("api/b2/groups")
    t.equal(res.statusCode, 200)
    const body = res.body as any
    t.same(body.groups.map((g: any) => g.name), ["Parent", "Child"])
    t.same(body.meta, { root: "groups" }, "no total on the groups list")
    const c = body.groups[1]
    t.match(c, {
      id: child.group.id,
      key: child.group.key,
      parent_id: parent.group.id,
      full_name: "Parent - Child",
      enabled: true,
      memberships_count: 3,
      accepted_memberships_count: 2,
      pending_memberships_count: 1,
      admin_memberships_count: 1,
      delegates_count: 1,
      discussions_count: 0,
      polls_count: 0,
      subgroups_count: 0
    })
    t.equal(body.groups[0].subgroups_count, 1)
    t.same(body.memberships.map((m: any) => m.group_id).sort(), [parent.group.id, child.group.id].sort(), "own memberships side-loaded")
    t.same(body.parent_groups.map((g: any) => g.id), [parent.group.id])
  })

  t.test("compact=1 and exclude_types drop related records, never the primary", async (t) => {
    const compact = (await s.as(ada.apiKey).get("api/b2/groups?compact=1")).body as any
    t.ok(compact.groups.length === 2)
    t.notOk("memberships" in compact)
    t.notOk("parent_groups" in compact)
    const ex = (await s.as(ada.apiKey).get("api/b2/groups?exclude_types=membership+group")).body as any
    t.equal(ex.groups.length, 2, "excluding group keeps the primary groups")
    t.notOk("memberships" in ex)
    t.ok("parent_groups" in ex)
    const bad = await s.as(ada.apiKey).get("api/b2/groups?compact=yes")
    t.equal(bad.statusCode, 400)
    t.match(bad.body, { error: /compact/ })
  })

  t.test("show by id, key and handle; 404 unknown; 403 invisible; public visible", async (t) => {
    for (const ref of [String(parent.group.id), parent.group.key, "parent-org"]) {
      const res = await s.as(ada.apiKey).get(`api/b2/groups/${ref}`)
      t.equal(res.statusCode, 200, ref)
      t.equal((res.body as any).groups[0].id, parent.group.id)
      t.notOk("total" in (res.body as any).meta)
    }
    t.equal((await s.as(ada.apiKey).get("api/b2/groups/999999")).statusCode, 404)
    t.same((await s.as(ada.apiKey).get("api/b2/groups/nope")).body, { error: "Group nope not found" })
    const hidden = await s.as(ada.apiKey).get(`api/b2/groups/${secret.group.id}`)
    t.equal(hidden.statusCode, 403)
    t.type((hidden.body as any).error, "string")
    t.equal((await s.as(ada.apiKey).get(`api/b2/groups/${open.group.key}`)).statusCode, 200, "public group readable by a non-member")
  })

  t.test("instance admin status grants nothing", async (t) => {
    t.equal((await s.as(eve.apiKey).get(`api/b2/groups/${secret.group.id}`)).statusCode, 403)
    const list = (await s.as(eve.apiKey).get("api/b2/groups")).body as any
    t.same(list.groups.map((g: any) => g.name), ["Child"], "a pending invitation is a live membership")
  })

  t.test("authentication", async (t) => {
    const none = await s.api.get("api/b2/groups")
    t.equal(none.statusCode, 403)
    t.type((none.body as any).error, "string")
    t.equal((await s.api.get(`api/b2/groups?api_key=${ada.apiKey}`)).statusCode, 403, "a key in the query string is refused")
    t.equal((await s.as("wrong").get("api/b2/groups")).statusCode, 403)
    t.equal((await s.api.get("api/b2/groups", { headers: { authorization: `Token ${ada.apiKey}` } })).statusCode, 403)
    await s.convene.users.deactivate({ id: bob.user.id })
    t.equal((await s.as(bob.apiKey).get("api/b2/groups")).statusCode, 403, "a deactivated user's key stops working")
  })
})
