import t from "tap"
import { seedUser, startTestServer, future } from "./helpers.js"


/** The legacy API: the user's key as `api_key` in a JSON body, a form field or the query string; b2's behaviour otherwise. */
t.test("/api/b1", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const admin = await seedUser(s.convene, { name: "Admin", email: "admin@example.org" })
  const member = await seedUser(s.convene, { name: "Member", email: "member@example.org" })
  const outsider = await seedUser(s.convene, { name: "Outsider" })
  const group = (await s.convene.groups.create({ name: "Legacy", owner: admin.user })).group
  await s.convene.members.add({ group, user: member.user })
  const key = admin.apiKey

  t.test("POST /discussions with the key in a JSON body, then GET with the key in the query string", async (t) => {
    const res = await s.api.post("api/b1/discussions", { json: { api_key: key, group_id: group.id, title: "From a JSON body", description: "Hello" } })
    t.equal(res.statusCode, 200)
    const d = (res.body as any).discussions[0]
    t.match(d, { title: "From a JSON body", group_id: group.id, author_id: admin.user.id })
    t.same((await s.sql("SELECT title FROM discussions WHERE id = ?", d.id)), [{ title: "From a JSON body" }])
    const wrapped = await s.api.post("api/b1/discussions", { json: { api_key: key, discussion: { group_id: group.id, title: "Wrapped" } } })
    t.equal(wrapped.statusCode, 200, "a wrapped body too")

    const shown = await s.api.get(`api/b1/discussions/${d.key}`, { searchParams: { api_key: key } })
    t.equal(shown.statusCode, 200)
    const b2 = await s.as(key).get(`api/b2/discussions/${d.key}`)
    t.same(shown.body, b2.body, "the same document as b2")
    t.equal((await s.api.get(`api/b1/discussions/${d.id}`, { searchParams: { api_key: outsider.apiKey } })).statusCode, 403, "b2's permission error")
    t.equal((await s.api.get("api/b1/discussions/999999", { searchParams: { api_key: key } })).statusCode, 404)
  })

  t.test("POST /discussions with the key as a form field", async (t) => {
    const res = await s.api.post("api/b1/discussions", { form: { api_key: key, group_id: String(group.id), title: "From a form" } })
    t.equal(res.statusCode, 200)
    t.equal((res.body as any).discussions[0].title, "From a form")
  })

  t.test("POST /polls (form, then query key) and GET /polls/{id}", async (t) => {
    const form = await s.api.post("api/b1/polls", {
      body: `api_key=${encodeURIComponent(key)}&group_id=${group.id}&title=Lunch&poll_type=poll&options%5B%5D=Pizza&options%5B%5D=Soup&closing_at=${encodeURIComponent(future())}`,
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    t.equal(form.statusCode, 200, JSON.stringify(form.body))
    const p = (form.body as any).polls[0]
    t.match(p, { title: "Lunch", poll_type: "poll", group_id: group.id })
    t.same((form.body as any).poll_options.map((o: any) => o.name), ["Pizza", "Soup"])
    const viaQuery = await s.api.post("api/b1/polls", {
      searchParams: { api_key: key },
      json: { poll: { group_id: group.id, title: "Adopt", poll_type: "proposal", closing_at: future() } }
    })
    t.equal(viaQuery.statusCode, 200, "the key in the query string of a POST")
    t.equal((viaQuery.body as any).polls[0].voters_count, 2)
    const shown = await s.api.get(`api/b1/polls/${p.key}`, { searchParams: { api_key: member.apiKey } })
    t.equal(shown.statusCode, 200)
    t.same(shown.body, (await s.as(member.apiKey).get(`api/b2/polls/${p.key}`)).body, "the same document as b2")
    const invalid = await s.api.post("api/b1/polls", { json: { api_key: key, group_id: group.id, title: "x", poll_type: "referendum" } })
    t.equal(invalid.statusCode, 422, "b2's validation")
    t.ok((invalid.body as any).errors.poll_type)
    const unknown = await s.api.post("api/b1/polls", { json: { api_key: key, group_id: group.id, title: "x", poll_type: "poll", colour: "red" } })
    t.equal(unknown.statusCode, 400, "unknown fields are refused (api_key is not one)")
  })

  t.test("GET and POST /memberships", async (t) => {
    const list = await s.api.get("api/b1/memberships", { searchParams: { api_key: key, group_id: group.id } })
    t.equal(list.statusCode, 200)
    t.same((list.body as any).memberships.map((m: any) => m.user_id), [admin.user.id, member.user.id])
    t.equal((list.body as any).meta.total, 2)
    t.equal((await s.api.get("api/b1/memberships", { searchParams: { api_key: key } })).statusCode, 400, "group_id is required")

    const sync = await s.api.post("api/b1/memberships", {
      json: { api_key: key, group_id: group.id, emails: ["admin@example.org", "new@example.org"], remove_absent: true }
    })
    t.equal(sync.statusCode, 200)
    t.same(sync.body, { added_emails: ["new@example.org"], removed_emails: ["member@example.org"] })
    t.same((await s.sql("SELECT count(*) AS n FROM memberships WHERE group_id = ? AND revoked_at IS NULL", group.id)), [{ n: 2 }])
    const denied = await s.api.post("api/b1/memberships", { form: { api_key: outsider.apiKey, group_id: String(group.id), "emails[]": "x@example.org" } })
    t.equal(denied.statusCode, 403, "administrators only, as b2")
  })

  t.test("a missing or wrong key is 403 wherever it is sent", async (t) => {
    const before = (await s.sql("SELECT count(*) AS n FROM discussions"))
    const body = { group_id: group.id, title: "Nope" }
    const cases: Array<[string, Promise<any>]> = [
      ["no key", s.api.post("api/b1/discussions", { json: body })],
      ["bad body key", s.api.post("api/b1/discussions", { json: { ...body, api_key: "wrong" } })],
      ["bad form key", s.api.post("api/b1/discussions", { form: { api_key: "wrong", group_id: String(group.id), title: "Nope" } })],
      ["bad query key", s.api.post("api/b1/discussions", { searchParams: { api_key: "wrong" }, json: body })],
      ["bad key on a read", s.api.get("api/b1/polls/1", { searchParams: { api_key: "wrong" } })],
      ["no key on a read", s.api.get(`api/b1/memberships?group_id=${group.id}`)]
    ]
    for (const [name, res] of cases) {
      const r = await res
      t.equal(r.statusCode, 403, name)
      t.match((r.body as any).error, /key/i, name)
    }
    t.same((await s.sql("SELECT count(*) AS n FROM discussions")), before, "nothing written")
    await s.b3.post(`api/b3/users/${outsider.user.id}/deactivate`)
    t.equal((await s.api.get(`api/b1/memberships?group_id=${group.id}&api_key=${outsider.apiKey}`)).statusCode, 403, "a deactivated user's key")
    t.equal((await s.api.get(`api/b2/groups?api_key=${key}`)).statusCode, 403, "b2 still never reads a query-string key")
  })

  t.test("b1 is not in the b2 OpenAPI document", async (t) => {
    const doc = (await s.api.get("api/b2/openapi.json")).body as any
    t.notOk(Object.keys(doc.paths).some((p) => p.startsWith("/api/b1")))
    t.ok(doc.paths["/api/b2/search"] && doc.paths["/api/b2/reports"], "search and reports are")
  })
})
