import { Memberships } from "@convene/core"
import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"

t.test("comments: create, reply, edit, delete", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const bob = await seedUser(s.convene, { name: "Bob" })
  const cat = await seedUser(s.convene, { name: "Cat" })
  const out = await seedUser(s.convene, { name: "Outsider" })
  const group = (await s.convene.groups.create({ name: "G", owner: ada.user, public: true })).group
  await s.convene.members.add({ group, user: bob.user })
  await s.convene.members.add({ group, user: cat.user })
  const [A, B, C, O] = [ada, bob, cat, out].map((u) => s.as(u.apiKey))
  const discussion = async (title: string) =>
    ((await A.post("api/b2/discussions", { json: { group_id: group.id, title } })).body as any).discussions[0]
  const d = await discussion("Talk")
  const other = await discussion("Elsewhere")

  t.test("create: flat, wrapped and form bodies; the response carries topic_id", async (t) => {
    const flat = await B.post("api/b2/comments", { json: { discussion_id: d.id, body: "Hello 👋\n\nsecond paragraph" } })
    t.equal(flat.statusCode, 200)
    const body = flat.body as any
    t.match(body.comments[0], {
      discussion_id: d.id,
      topic_id: d.topic_id,
      parent_id: null,
      author_id: bob.user.id,
      body: "Hello 👋\n\nsecond paragraph",
      body_format: "md",
      edited_at: null,
      discarded_at: null
    })
    t.same(body.discussions.map((x: any) => x.id), [d.id])
    t.equal(body.topics[0].items_count, 2, "the item counter commits with the comment")
    t.same(body.users.map((u: any) => u.id), [bob.user.id])
    t.same(body.meta, { root: "comments" })
    const wrapped = await B.post("api/b2/comments", { json: { comment: { discussion_id: d.id, body: "wrapped" } } })
    t.equal(wrapped.statusCode, 200)
    const form = await B.post(`api/b2/comments?discussion_id=${d.id}`, { form: { body: "by form" } })
    t.equal(form.statusCode, 200, "a form body with discussion_id in the query string")
    t.equal((form.body as any).comments[0].body, "by form")
    const long = "x".repeat(20000) + " ✓"
    t.equal(((await B.post("api/b2/comments", { json: { discussion_id: d.id, body: long } })).body as any).comments[0].body, long)
    t.same(
      (await s.sql<any>("SELECT kind FROM topic_items WHERE topic_id = ? ORDER BY sequence_id", d.topic_id)).map((r) => r.kind),
      ["new_discussion", "new_comment", "new_comment", "new_comment", "new_comment"]
    )
  })

  t.test("create: bad input and refusals", async (t) => {
    const first = ((await B.post("api/b2/comments", { json: { discussion_id: d.id, body: "parent" } })).body as any).comments[0]
    const elsewhere = ((await B.post("api/b2/comments", { json: { discussion_id: other.id, body: "x" } })).body as any).comments[0]
    const gone = ((await B.post("api/b2/comments", { json: { discussion_id: d.id, body: "gone" } })).body as any).comments[0]
    await B.delete(`api/b2/comments/${gone.id}`)
    const before = (await s.sql("SELECT count(*) AS n FROM comments"))
    const items = (await s.sql("SELECT count(*) AS n FROM topic_items"))
    const cases: Array<[string, object, number, unknown]> = [
      ["no discussion_id", { body: "x" }, 400, { error: "Missing required field: discussion_id" }],
      ["unknown discussion", { discussion_id: 99999, body: "x" }, 404, { error: "Discussion 99999 not found" }],
      ["blank body", { discussion_id: d.id, body: "  " }, 422, { errors: { body: ["can't be blank"] } }],
      ["missing body", { discussion_id: d.id }, 422, { errors: { body: ["can't be blank"] } }],
      ["unknown field", { discussion_id: d.id, body: "x", mood: "happy" }, 400, { error: "Unknown field: mood" }],
      ["bad format", { discussion_id: d.id, body: "x", body_format: "doc" }, 400, { error: /body_format/ }],
      ["parent elsewhere", { discussion_id: d.id, body: "x", parent_id: elsewhere.id }, 422, {
        errors: { parent_id: ["must be a comment of the same discussion"] }
      }],
      ["unknown parent", { discussion_id: d.id, body: "x", parent_id: 99999 }, 422, { errors: { parent_id: [/same discussion/] } }],
      ["deleted parent", { discussion_id: d.id, body: "x", parent_id: gone.id }, 422, { errors: { parent_id: ["has been deleted"] } }]
    ]
    for (const [name, json, status, body] of cases) {
      const res = await B.post("api/b2/comments", { json })
      t.equal(res.statusCode, status, name)
      t.match(res.body, body, name)
    }
    t.equal((await O.post("api/b2/comments", { json: { discussion_id: d.id, body: "x" } })).statusCode, 403, "a non-member may not comment on a public thread")
    t.same((await s.sql("SELECT count(*) AS n FROM comments")), before, "nothing written")
    t.same((await s.sql("SELECT count(*) AS n FROM topic_items")), items)
    const reply = await C.post("api/b2/comments", { json: { discussion_id: d.id, body: "reply", parent_id: first.id } })
    t.equal((reply.body as any).comments[0].parent_id, first.id)
    t.same((await s.sql("SELECT kind, recipient_user_id FROM mail_outbox WHERE kind = 'comment_replied_to'")), [
      { kind: "comment_replied_to", recipient_user_id: bob.user.id }
    ], "the parent's author is told")
    const leaver = await seedUser(s.convene, { name: "Leaver" })
    await s.convene.members.add({ group, user: leaver.user })
    const theirs = ((await s.as(leaver.apiKey).post("api/b2/comments", { json: { discussion_id: d.id, body: "bye" } })).body as any).comments[0]
    await s.convene.run(Memberships.removeMember(group, leaver.user))
    await C.post("api/b2/comments", { json: { discussion_id: d.id, body: "to someone gone", parent_id: theirs.id } })
    t.same((await s.sql("SELECT count(*) AS n FROM mail_outbox WHERE kind = 'comment_replied_to'")), [{ n: 1 }], "no mail to someone no longer in the thread")
  })

  t.test("edit: author, PATCH and PUT, edited_at; group flags; refusals change nothing", async (t) => {
    const c = ((await B.post("api/b2/comments", { json: { discussion_id: d.id, body: "first take" } })).body as any).comments[0]
    const patched = await B.patch(`api/b2/comments/${c.id}`, { json: { body: "second take" } })
    t.equal(patched.statusCode, 200)
    t.match((patched.body as any).comments[0], { body: "second take", body_format: "md", edited_at: /T/ })
    const put = await B.put(`api/b2/comments/${c.id}`, { json: { comment: { body: "<b>third</b><iframe src=x></iframe>", body_format: "html" } } })
    t.match((put.body as any).comments[0], { body: "<b>third</b>", body_format: "html" })
    t.equal((await C.patch(`api/b2/comments/${c.id}`, { json: { body: "not mine" } })).statusCode, 403, "another member may not")
    t.equal((await A.patch(`api/b2/comments/${c.id}`, { json: { body: "moderated" } })).statusCode, 200, "admins_can_edit_user_content")
    t.equal((await B.patch(`api/b2/comments/${c.id}`, { json: { body: "" } })).statusCode, 422)
    t.equal((await B.patch("api/b2/comments/99999", { json: { body: "x" } })).statusCode, 404)
    t.equal((await B.patch("api/b2/comments/abc", { json: { body: "x" } })).statusCode, 404)
    t.equal((await B.patch(`api/b2/comments/${c.id}`, { json: { body: "x", extra: 1 } })).statusCode, 400)
    t.equal((await s.sql<any>("SELECT body FROM comments WHERE id = ?", c.id))[0].body, "moderated")
  })

  t.test("delete: soft, body hidden, replies stay", async (t) => {
    const c = ((await B.post("api/b2/comments", { json: { discussion_id: d.id, body: "regret" } })).body as any).comments[0]
    await C.post("api/b2/comments", { json: { discussion_id: d.id, body: "answer", parent_id: c.id } })
    t.equal((await C.delete(`api/b2/comments/${c.id}`)).statusCode, 403)
    const res = await B.delete(`api/b2/comments/${c.id}`)
    t.equal(res.statusCode, 200)
    t.match((res.body as any).comments[0], { id: c.id, body: null, discarded_at: /T/, discarded_by: bob.user.id })
    t.equal((await s.sql<any>("SELECT body FROM comments WHERE id = ?", c.id))[0].body, "regret", "the record stays")
    t.equal((await B.delete(`api/b2/comments/${c.id}`)).statusCode, 404)
    t.equal((await B.patch(`api/b2/comments/${c.id}`, { json: { body: "undo" } })).statusCode, 404)
    const byAdmin = ((await B.post("api/b2/comments", { json: { discussion_id: d.id, body: "spam" } })).body as any).comments[0]
    t.equal((await A.delete(`api/b2/comments/${byAdmin.id}`)).statusCode, 200, "a group admin may delete")
  })

  t.test("closed threads block comments, edits and deletes", async (t) => {
    const c = ((await B.post("api/b2/comments", { json: { discussion_id: other.id, body: "before" } })).body as any).comments[0]
    await A.post(`api/b2/discussions/${other.id}/close`)
    t.equal((await B.post("api/b2/comments", { json: { discussion_id: other.id, body: "after" } })).statusCode, 403)
    t.equal((await B.patch(`api/b2/comments/${c.id}`, { json: { body: "edit" } })).statusCode, 403)
    t.equal((await B.delete(`api/b2/comments/${c.id}`)).statusCode, 403)
    t.equal((await s.sql<any>("SELECT body, discarded_at FROM comments WHERE id = ?", c.id))[0].discarded_at, null)
  })
})
