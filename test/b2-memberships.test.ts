import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"

t.test("GET /api/b2/memberships", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const admin = await seedUser(s.convene, { name: "Admin" })
  const member = await seedUser(s.convene, { name: "Member" })
  const outsider = await seedUser(s.convene, { name: "Outsider" })
  const group = (await s.convene.groups.create({ name: "Team", owner: admin.user })).group
  const sub = (await s.convene.groups.create({ name: "Sub", owner: member.user, parent: group })).group
  await s.convene.members.add({ group, user: member.user, delegate: true })

  t.test("a member reads names, roles and titles but no other e-mail", async (t) => {
    const res = await s.as(member.apiKey).get(`api/b2/memberships?group_id=${group.id}`)
    t.equal(res.statusCode, 200)
    const body = res.body as any
    t.equal(body.meta.total, 2)
    t.equal(body.meta.root, "memberships")
    t.same(body.memberships.map((m: any) => [m.user_id, m.admin, m.delegate]), [[admin.user.id, true, false], [member.user.id, false, true]])
    const own = body.memberships.find((m: any) => m.user_id === member.user.id)
    const other = body.memberships.find((m: any) => m.user_id === admin.user.id)
    t.equal(own.user_email, member.user.email, "own membership carries the e-mail")
    t.notOk("user_email" in other, "another member's e-mail is hidden")
    const users = body.users as Array<any>
    t.same(users.map((u) => u.name).sort(), ["Admin", "Member"])
    t.notOk("email" in users.find((u) => u.id === admin.user.id), "no other user's email in users")
    t.equal(users.find((u) => u.id === member.user.id).email, member.user.email)
    t.equal(body.groups[0].id, group.id)
  })

  t.test("an administrator sees every member's e-mail", async (t) => {
    const body = (await s.as(admin.apiKey).get(`api/b2/memberships?group_id=${group.id}`)).body as any
    t.same(body.memberships.map((m: any) => m.user_email), [admin.user.email, member.user.email])
  })

  t.test("parent-group administrators read a subgroup's members; outsiders get an empty list", async (t) => {
    const parentAdmin = (await s.as(admin.apiKey).get(`api/b2/memberships?group_id=${sub.id}`)).body as any
    t.equal(parentAdmin.memberships.length, 1)
    const res = await s.as(outsider.apiKey).get(`api/b2/memberships?group_id=${group.id}`)
    t.equal(res.statusCode, 200)
    t.same((res.body as any).memberships, [])
    t.equal((res.body as any).meta.total, 0)
    t.notOk((res.body as any).users?.length, "no users leak")
  })

  t.test("paging and bad parameters", async (t) => {
    const page = (await s.as(admin.apiKey).get(`api/b2/memberships?group_id=${group.id}&limit=1&offset=1`)).body as any
    t.same(page.memberships.map((m: any) => m.user_id), [member.user.id])
    t.equal(page.meta.total, 2, "total is counted before paging")
    const alias = (await s.as(admin.apiKey).get(`api/b2/memberships?group_id=${group.id}&per=1`)).body as any
    t.equal(alias.memberships.length, 2, "per/from are aliases on the discussion and poll lists only; here they are ignored")
    const repeated = (await s.as(admin.apiKey).get(`api/b2/memberships?group_id=${group.id}&limit=2&limit=1`)).body as any
    t.equal(repeated.memberships.length, 1, "a repeated parameter counts by its last value (as Rails)")
    for (const [q, field] of [
      ["", "group_id"],
      ["group_id=abc", "group_id"],
      [`group_id=${group.id}&limit=0`, "limit"],
      [`group_id=${group.id}&offset=-1`, "offset"],
      [`group_id=${group.id}&limit=1.5`, "limit"]
    ] as const) {
      const res = await s.as(admin.apiKey).get(`api/b2/memberships?${q}`)
      t.equal(res.statusCode, 400, q)
      t.match((res.body as any).error, field, q)
    }
    t.equal((await s.as(admin.apiKey).get("api/b2/memberships?group_id=99999")).statusCode, 404)
  })
})

t.test("POST /api/b2/memberships", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const admin = await seedUser(s.convene, { name: "Admin", email: "admin@example.org" })
  const member = await seedUser(s.convene, { name: "Member", email: "member@example.org" })
  const outsider = await seedUser(s.convene, { name: "Outsider" })
  const group = (await s.convene.groups.create({ name: "Team", owner: admin.user })).group
  const other = (await s.convene.groups.create({ name: "Other", owner: outsider.user })).group
  await s.convene.members.add({ group, user: member.user })
  const live = async () => (await s.sql<{ email: string; accepted_at: string | null }>(
    `SELECT u.email, m.accepted_at FROM memberships m JOIN users u ON u.id = m.user_id
     WHERE m.group_id = ? AND m.revoked_at IS NULL ORDER BY m.id`, group.id))

  t.test("invites new addresses as pending members and records the invitations", async (t) => {
    const res = await s.as(admin.apiKey).post("api/b2/memberships", {
      json: { group_id: group.id, emails: ["hey@there.com", "member@example.org", "HEY@there.com"] }
    })
    t.equal(res.statusCode, 200)
    t.same(res.body, { added_emails: ["hey@there.com"], removed_emails: [] })
    t.same((await live()).map((r) => r.email), ["admin@example.org", "member@example.org", "hey@there.com"])
    t.equal((await live())[2]!.accepted_at, null, "pending invitation")
    const mail = (await s.sql<{ recipient_email: string; kind: string }>("SELECT recipient_email, kind FROM mail_outbox"))
    t.same(mail, [{ recipient_email: "hey@there.com", kind: "group_invitation" }])
    const again = await s.as(admin.apiKey).post("api/b2/memberships", { json: { group_id: group.id, emails: ["hey@there.com"] } })
    t.same(again.body, { added_emails: [], removed_emails: [] }, "idempotent")
    t.equal((await s.sql("SELECT * FROM mail_outbox")).length, 1)
  })

  t.test("remove_absent as 1, true and '1' removes absent members, the caller included", async (t) => {
    const res = await s.as(admin.apiKey).post("api/b2/memberships", {
      json: { group_id: group.id, emails: ["member@example.org", "admin@example.org"], remove_absent: 1 }
    })
    t.same(res.body, { added_emails: [], removed_emails: ["hey@there.com"] })
    const form = await s.api.post("api/b2/memberships", {
      form: { api_key: admin.apiKey, group_id: String(group.id), "emails[]": "member@example.org", remove_absent: "true" }
    })
    t.equal(form.statusCode, 200, "form body with api_key")
    t.same(form.body, { added_emails: [], removed_emails: ["admin@example.org"] })
    t.same((await live()).map((r) => r.email), ["member@example.org"])
    const revoked = (await s.sql<{ revoker_id: number }>("SELECT revoker_id FROM memberships WHERE user_id = ? AND group_id = ?", admin.user.id, group.id))
    t.equal(revoked[0]!.revoker_id, admin.user.id)
    t.equal((await s.as(admin.apiKey).post("api/b2/memberships", { json: { group_id: group.id, emails: [] } })).statusCode, 403, "no longer an admin")
  })

  t.test("refusals change nothing", async (t) => {
    const before = (await s.sql("SELECT * FROM memberships")).length
    const cases: Array<[string, any, number, RegExp | object]> = [
      [member.apiKey, { group_id: group.id, emails: ["x@y.org"] }, 403, { error: "User is not an admin" }],
      [outsider.apiKey, { group_id: group.id, emails: ["x@y.org"] }, 403, { error: /admin/ }],
      [outsider.apiKey, { group_id: 99999, emails: ["x@y.org"] }, 404, { error: /not found/ }],
      [outsider.apiKey, { emails: ["x@y.org"] }, 400, { error: /group_id/ }],
      [outsider.apiKey, { group_id: other.id }, 400, { error: /emails/ }],
      [outsider.apiKey, { group_id: other.id, emails: "x@y.org" }, 400, { error: /emails/ }],
      [outsider.apiKey, { group_id: "one", emails: [] }, 400, { error: /group_id/ }],
      [outsider.apiKey, { group_id: other.id, emails: [], remove_absent: "maybe" }, 400, { error: /remove_absent/ }],
      [outsider.apiKey, { group_id: other.id, emails: [], extra: 1 }, 400, { error: /extra/ }],
      [outsider.apiKey, { group_id: other.id, emails: ["not-an-email"] }, 422, { errors: { emails: [/not-an-email/] } }]
    ]
    for (const [key, json, status, body] of cases) {
      const res = await s.as(key).post("api/b2/memberships", { json })
      t.equal(res.statusCode, status, JSON.stringify(json))
      t.match(res.body, body)
    }
    t.equal((await s.api.post("api/b2/memberships", { json: { group_id: other.id, emails: [] } })).statusCode, 403, "no key")
    t.equal((await s.api.post(`api/b2/memberships?api_key=${outsider.apiKey}`, { json: { group_id: other.id, emails: [] } })).statusCode, 403,
      "a key in the query string is never read")
    t.equal((await s.sql("SELECT * FROM memberships")).length, before, "nothing written")
    t.equal((await s.sql("SELECT * FROM users WHERE email = 'x@y.org'")).length, 0)
  })

  t.test("wrapped body and query fields filling a POST body", async (t) => {
    const wrapped = await s.as(outsider.apiKey).post("api/b2/memberships", { json: { membership: { group_id: other.id, emails: ["w@x.org"] } } })
    t.same(wrapped.body, { added_emails: ["w@x.org"], removed_emails: [] })
    const q = await s.as(outsider.apiKey).post(`api/b2/memberships?group_id=${other.id}`, { json: { emails: ["q@x.org"] } })
    t.same(q.body, { added_emails: ["q@x.org"], removed_emails: [] })
  })
})
