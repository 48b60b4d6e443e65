import t from "tap"
import { B3_KEY, seedUser, startTestServer } from "./helpers.js"

t.test("Server API /api/b3/users", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await s.convene.users.create({
    email: "ada@example.org",
    name: "Ada",
    username: "ada",
    identity: { identity_type: "oauth", uid: "ada-1" }
  })
  const bob = await seedUser(s.convene, { name: "Bob", email: "bob@example.org" })
  const root = await seedUser(s.convene, { name: "Root", is_admin: true })
  const group = (await s.convene.groups.create({ name: "G", owner: ada.user })).group
  await s.convene.members.add({ group, user: bob.user })

  t.test("authentication: the secret as a bearer header only", async (t) => {
    t.equal((await s.api.get("api/b3/users")).statusCode, 403)
    t.equal((await s.api.get("api/b3/users", { headers: { authorization: "Bearer wrong-but-long-enough-key" } })).statusCode, 403)
    t.equal((await s.api.get(`api/b3/users?b3_api_key=${B3_KEY}`)).statusCode, 403)
    t.equal((await s.as(ada.apiKey).get("api/b3/users")).statusCode, 403, "a user key is not the server secret")
    const res = await s.b3.get("api/b3/users")
    t.equal(res.statusCode, 200)
  })

  t.test("list, filter and page", async (t) => {
    const body = (await s.b3.get("api/b3/users")).body as any
    t.same(body.users.map((u: any) => u.id), [ada.user.id, bob.user.id, root.user.id])
    t.same(body.users[0], {
      id: ada.user.id,
      name: "Ada",
      username: "ada",
      email: "ada@example.org",
      is_admin: false,
      active: true,
      deactivated_at: null,
      identities: [{ id: body.users[0].identities[0].id, identity_type: "oauth", uid: "ada-1", email: "ada@example.org", name: "Ada" }]
    })
    t.same(((await s.b3.get("api/b3/users?is_admin=true")).body as any).users.map((u: any) => u.id), [root.user.id])
    t.same(((await s.b3.get("api/b3/users?is_admin=0")).body as any).users.length, 2)
    const page = (await s.b3.get("api/b3/users?limit=1&offset=1")).body as any
    t.same(page.users.map((u: any) => u.id), [bob.user.id])
    t.equal(page.meta.total, 3)
    t.equal(((await s.b3.get("api/b3/users?limit=5000")).body as any).users.length, 3, "a limit above 1000 is served as 1000")
    for (const q of ["is_admin=yes", "limit=0", "offset=-2"]) {
      const res = await s.b3.get(`api/b3/users?${q}`)
      t.equal(res.statusCode, 400, q)
      t.type((res.body as any).error, "string")
    }
  })

  t.test("show by id and by identity; unknown is 404", async (t) => {
    t.equal(((await s.b3.get(`api/b3/users/${ada.user.id}`)).body as any).user.email, "ada@example.org")
    t.equal(((await s.b3.get("api/b3/users/identity/oauth/ada-1")).body as any).user.id, ada.user.id)
    t.equal((await s.b3.get("api/b3/users/99999")).statusCode, 404)
    t.equal((await s.b3.get("api/b3/users/abc")).statusCode, 404)
    t.equal((await s.b3.get("api/b3/users/identity/oauth/nobody")).statusCode, 404)
  })

  t.test("update by id (PATCH and PUT) and by identity", async (t) => {
    const res = await s.b3.patch(`api/b3/users/${bob.user.id}`, { json: { user: { name: "Robert", username: "rob" } } })
    t.equal(res.statusCode, 200)
    t.match((res.body as any).user, { name: "Robert", username: "rob", email: "bob@example.org" })
    const put = await s.b3.put(`api/b3/users/${bob.user.id}`, { json: { user: { is_admin: true } } })
    t.equal((put.body as any).user.is_admin, true)
    const byIdentity = await s.b3.patch("api/b3/users/identity/oauth/ada-1", { json: { user: { email: "ADA@new.example.org" } } })
    t.equal((byIdentity.body as any).user.email, "ada@new.example.org")
    t.same((await s.sql("SELECT name, username, is_admin FROM users WHERE id = ?", bob.user.id)), [{ name: "Robert", username: "rob", is_admin: 1 }])
  })

  t.test("bad updates are refused and change nothing", async (t) => {
    const before = (await s.sql("SELECT * FROM users ORDER BY id"))
    const cases: Array<[any, number, RegExp]> = [
      [{}, 400, /user/],
      [{ user: { is_owner: true } }, 400, /is_owner/],
      [{ user: { name: 5 } }, 400, /name/],
      [{ user: { is_admin: "sometimes" } }, 400, /is_admin/],
      [{ user: { name: "x" }, extra: true }, 400, /extra/],
      [{ user: { email: "not an email" } }, 422, /email/],
      [{ user: { email: "bob@example.org" } }, 422, /email/],
      [{ user: { username: "rob" } }, 422, /username/]
    ]
    for (const [json, status, field] of cases) {
      const res = await s.b3.patch(`api/b3/users/${ada.user.id}`, { json })
      t.equal(res.statusCode, status, JSON.stringify(json))
      t.match(JSON.stringify(res.body), field)
    }
    const malformed = await s.b3.patch(`api/b3/users/${ada.user.id}`, { body: "{nope", headers: { "content-type": "application/json" } })
    t.equal(malformed.statusCode, 400)
    t.same((await s.sql("SELECT * FROM users ORDER BY id")), before)
  })

  t.test("deactivate and reactivate (by id, identity and legacy query id)", async (t) => {
    const res = await s.b3.post(`api/b3/users/${bob.user.id}/deactivate`)
    t.equal(res.statusCode, 200)
    t.match(res.body, { success: true, user: { id: bob.user.id, active: false, deactivated_at: String } })
    t.same((await s.sql("SELECT revoked_at IS NOT NULL AS revoked FROM memberships WHERE user_id = ?", bob.user.id)), [{ revoked: 1 }])
    t.equal((await s.as(bob.apiKey).get("api/b2/groups")).statusCode, 403, "a deactivated user's key is refused")
    t.equal((await s.b3.post(`api/b3/users/${bob.user.id}/deactivate`)).statusCode, 404, "already deactivated")
    const back = await s.b3.post(`api/b3/users/reactivate?id=${bob.user.id}`)
    t.match(back.body, { success: true, user: { active: true, deactivated_at: null } })
    t.same((await s.sql("SELECT revoked_at FROM memberships WHERE user_id = ?", bob.user.id)), [{ revoked_at: null }], "membership restored")
    t.equal((await s.b3.post(`api/b3/users/${bob.user.id}/reactivate`)).statusCode, 404, "already active")
    t.equal((await s.b3.post("api/b3/users/identity/oauth/ada-1/deactivate")).statusCode, 200)
    t.equal((await s.b3.post("api/b3/users/identity/oauth/ada-1/reactivate")).statusCode, 200)
    t.equal((await s.b3.post(`api/b3/users/deactivate?id=${bob.user.id}`)).statusCode, 200)
    t.equal((await s.b3.post(`api/b3/users/${bob.user.id}/reactivate`)).statusCode, 200)
    t.equal((await s.b3.post("api/b3/users/deactivate")).statusCode, 400, "legacy route needs ?id")
    t.equal((await s.b3.post("api/b3/users/deactivate?id=x")).statusCode, 400)
  })

  t.test("redact keeps the record and content, removes identifying data", async (t) => {
    const res = await s.b3.post("api/b3/users/identity/oauth/ada-1/redact")
    t.equal(res.statusCode, 200)
    t.same(res.body, { success: true })
    const [row] = (await s.sql<any>("SELECT * FROM users WHERE id = ?", ada.user.id))
    t.match(row, { name: null, username: null, email: null, country: null, is_admin: 0, email_sha256: /^[0-9a-f]{64}$/ })
    t.ok(row.deactivated_at && row.redacted_at)
    t.same((await s.sql("SELECT * FROM identities WHERE user_id = ?", ada.user.id)), [])
    t.same((await s.sql("SELECT * FROM memberships WHERE user_id = ? AND revoked_at IS NULL", ada.user.id)), [])
    t.same((await s.sql("SELECT name FROM groups WHERE id = ?", group.id)), [{ name: "G" }], "groups they made stay")
    t.equal((await s.as(ada.apiKey).get("api/b2/groups")).statusCode, 403, "key rotated")
    t.equal((await s.b3.post(`api/b3/users/${ada.user.id}/redact`)).statusCode, 200, "redacting again is harmless")
  })

  t.test("delete removes the user and their records", async (t) => {
    const res = await s.b3.delete(`api/b3/users/${bob.user.id}`)
    t.same(res.body, { success: true })
    t.same((await s.sql("SELECT * FROM users WHERE id = ?", bob.user.id)), [])
    t.same((await s.sql("SELECT * FROM memberships WHERE user_id = ?", bob.user.id)), [])
    t.equal((await s.b3.delete(`api/b3/users/${bob.user.id}`)).statusCode, 404)
    const carol = await s.convene.users.create({ email: "carol@example.org", identity: { identity_type: "saml", uid: "c.1@x" } })
    t.equal((await s.b3.delete("api/b3/users/identity/saml/c.1@x")).statusCode, 200, "uid with dots")
    t.same((await s.sql("SELECT * FROM users WHERE id = ?", carol.user.id)), [])
  })
})

t.test("the Server API is off unless B3_API_KEY is longer than 16 characters", async (t) => {
  for (const key of [undefined, "", "sixteen-chars-xx"]) {
    const s = await startTestServer({ b3ApiKey: key })
    const res = await s.api.get("api/b3/users", { headers: { authorization: `Bearer ${key ?? ""}` } })
    t.equal(res.statusCode, 403, `key ${JSON.stringify(key)}`)
    t.match(res.body, { error: String })
    await s.close()
  }
})
