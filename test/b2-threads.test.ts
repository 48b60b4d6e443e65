import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"
import { matchExact } from "./match.js"

t.test("threads, thread items, markdown and reactions", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const bob = await seedUser(s.convene, { name: "Bob" })
  const cat = await seedUser(s.convene, { name: "Cat" })
  const out = await seedUser(s.convene, { name: "Outsider" })
  const org = (await s.convene.groups.create({ name: "Org", owner: ada.user, public: true })).group
  const board = (await s.convene.groups.create({ name: "Board", owner: ada.user, parent: org })).group
  await s.convene.members.add({ group: board, user: bob.user })
  await s.convene.members.add({ group: board, user: cat.user })
  const [A, B, C, O] = [ada, bob, cat, out].map((u) => s.as(u.apiKey))

  const post = async (client: typeof A, path: string, json: object) => {
    const res = await client.post(path, { json })
    if (res.statusCode !== 200) throw new Error(`${path} ${res.statusCode} ${JSON.stringify(res.body)}`)
    return res.body as any
  }
  const comment = async (client: typeof A, json: object) => (await post(client, "api/b2/comments", json)).comments[0]

  const d = (await post(A, "api/b2/discussions", {
    group_id: board.id,
    title: "A clearer thread",
    description: "# Purpose\n\nDecide the **budget**.\n\n## Details\n\n```\n# not a heading\n```"
  })).discussions[0]
  const c1 = await comment(B, { discussion_id: d.id, body: "I agree.\nWith one caveat." })
  const c2 = await comment(C, { discussion_id: d.id, parent_id: c1.id, body: "Which caveat?" })
  const c3 = await comment(B, { discussion_id: d.id, parent_id: c2.id, body: "The timing." })
  const c3b = await comment(A, { discussion_id: d.id, parent_id: c3.id, body: "Agreed." })
  const c4 = await comment(A, { discussion_id: d.id, body: "<p>Let's <strong>vote</strong><script>x()</script></p>", body_format: "html" })
  const c5 = await comment(C, { discussion_id: d.id, body: "Oops" })
  const c6 = await comment(B, { discussion_id: d.id, parent_id: c5.id, body: "Still here." })
  await post(A, "api/b2/reactions", { reactable_type: "Comment", reactable_id: c1.id, reaction: "👍" })
  await post(B, "api/b2/reactions", { reactable_type: "Comment", reactable_id: c1.id, reaction: "🎉" })
  const catThumb = (await post(C, "api/b2/reactions", { reactable_type: "Comment", reactable_id: c1.id, reaction: "👍" })).reactions[0]
  t.equal((await C.delete(`api/b2/comments/${c5.id}`)).statusCode, 200)

  // fixed times and key, so that the document can be compared with literal text
  await s.sql("UPDATE discussions SET key = 'thread1', created_at = '2026-07-15T10:00:00.000Z' WHERE id = ?", d.id)
  await s.sql("UPDATE topics SET last_activity_at = '2026-07-15T12:00:00.000Z' WHERE id = ?", d.topic_id)
  const minutes: Array<[number, string]> = [[c1.id, "05"], [c2.id, "10"], [c3.id, "15"], [c3b.id, "20"], [c4.id, "30"], [c5.id, "40"], [c6.id, "50"]]
  for (const [id, m] of minutes) await s.sql("UPDATE comments SET created_at = ? WHERE id = ?", `2026-07-15T10:${m}:00.000Z`, id)

  t.test("markdown: the whole thread in Loomio's newest format", async (t) => {
    const res = await B.get(`api/b2/threads/${d.topic_id}/markdown`)
    t.equal(res.statusCode, 200)
    t.same(Object.keys(res.body as unknown as object), ["markdown"])
    const expected = [
      "---",
      'key: "thread1"',
      'group: "Org - Board"',
      'created: "2026-07-15T10:00:00Z"',
      'last_activity: "2026-07-15T12:00:00Z"',
      "---",
      "",
      "# Discussion: A clearer thread · Ada · 2026-07-15 10:00",
      "",
      "## Purpose",
      "",
      "Decide the **budget**.",
      "",
      "### Details",
      "",
      "```",
      "# not a heading",
      "```",
      "",
      "> **Bob** · 2026-07-15 10:05 · #1 · 👍 Ada, Cat · 🎉 Bob",
      ">",
      "> I agree.",
      "> With one caveat.",
      ">",
      "> > **Cat** · 2026-07-15 10:10 · #2",
      "> >",
      "> > Which caveat?",
      "> >",
      "> > > **Bob** · 2026-07-15 10:15 · #3",
      "> > >",
      "> > > The timing.",
      "> >",
      "> > > **Ada** · 2026-07-15 10:20 · #4",
      "> > >",
      "> > > Agreed.",
      "",
      "> **Ada** · 2026-07-15 10:30 · #5",
      ">",
      "> Let's **vote**",
      "",
      "> _Removed_",
      ">",
      "> > **Bob** · 2026-07-15 10:50 · #7",
      "> >",
      "> > Still here.",
      ""
    ].join("\n")
    t.equal((res.body as any).markdown, expected)
  })

  t.test("items: every item by sequence_id with meta.total; replies nest, deep replies stay within max_depth", async (t) => {
    const res = await B.get(`api/b2/threads/${d.topic_id}/items`)
    t.equal(res.statusCode, 200)
    const body = res.body as any
    t.same(body.items.map((i: any) => i.sequence_id), [0, 1, 2, 3, 4, 5, 6, 7])
    t.equal(body.meta.total, 8)
    t.equal(body.meta.root, "items")
    const byComment = new Map(body.items.map((i: any) => [i.itemable_id, i]))
    const root = body.items[0]
    t.match(root, { kind: "new_discussion", itemable_type: "Discussion", itemable_id: d.id, depth: 0, parent_id: null, position_key: null })
    const item = (c: any) => byComment.get(c.id) as any
    t.match(item(c1), { kind: "new_comment", depth: 1, parent_id: root.id, position_key: "00001", child_count: 1, actor_id: bob.user.id })
    t.match(item(c2), { depth: 2, parent_id: item(c1).id, position_key: "00001-00001" })
    t.match(item(c3), { depth: 3, parent_id: item(c2).id, position_key: "00001-00001-00001" })
    t.match(item(c3b), { depth: 3, parent_id: item(c2).id, position_key: "00001-00001-00002" }, "a reply below max_depth goes to its grandparent")
    t.match(item(c4), { depth: 1, position_key: "00002" })
    t.same(body.comments.map((c: any) => c.id).sort(), [c1, c2, c3, c3b, c4, c5, c6].map((c) => c.id).sort())
    t.equal(body.comments.find((c: any) => c.id === c5.id).body, null, "a deleted comment's body is hidden")
    t.equal(body.comments.find((c: any) => c.id === c3b.id).parent_id, c3.id, "the comment keeps the parent it answered")
    t.equal(body.comments.find((c: any) => c.id === c4.id).body, "<p>Let's <strong>vote</strong></p>", "html comments are sanitised")
    t.same(body.discussions.map((x: any) => x.id), [d.id])
    t.same(body.topics.map((x: any) => x.id), [d.topic_id])
    t.equal(body.topics[0].items_count, 8)
    t.equal(body.reactions.length, 3)
    t.same(body.users.map((u: any) => u.id).sort(), [ada.user.id, bob.user.id, cat.user.id].sort())
    t.notOk(body.users.some((u: any) => u.id !== bob.user.id && "email" in u), "only the caller's own e-mail")
    const compact = (await B.get(`api/b2/threads/${d.topic_id}/items?compact=1`)).body as any
    for (const root of ["topics", "groups", "parent_groups", "memberships", "reactions", "tags", "translations"]) t.notOk(root in compact, root)
    t.equal(compact.meta.total, 8)
    const ex = (await B.get(`api/b2/threads/${d.topic_id}/items?exclude_types=comment discussion`)).body as any
    t.notOk("comments" in ex)
    t.notOk("discussions" in ex)
    t.equal(ex.items.length, 8)
  })

  t.test("list and show: visible threads, latest activity first, meta.total", async (t) => {
    const pub = (await post(A, "api/b2/discussions", { group_id: org.id, title: "Open to all" })).discussions[0]
    const list = (await B.get("api/b2/threads")).body as any
    t.same(list.threads.map((x: any) => x.id), [pub.topic_id, d.topic_id], "Bob reads Org's public thread without membership")
    const ada = (await A.get("api/b2/threads")).body as any
    t.same(ada.threads.map((x: any) => x.id), [pub.topic_id, d.topic_id], "latest activity first")
    t.equal(ada.meta.total, 2)
    t.same(ada.discussions.map((x: any) => x.topic_id).sort(), [d.topic_id, pub.topic_id].sort())
    t.ok(ada.groups.length === 2 && ada.users.length === 1)
    const paged = (await A.get("api/b2/threads?limit=1&offset=1")).body as any
    t.same(paged.threads.map((x: any) => x.id), [d.topic_id])
    t.equal(paged.meta.total, 2)
    const outsider = (await O.get("api/b2/threads")).body as any
    t.same(outsider.threads.map((x: any) => x.id), [pub.topic_id], "a non-member reads public threads of public groups only")
    const show = await A.get(`api/b2/threads/${d.topic_id}`)
    t.equal(show.statusCode, 200)
    t.same((show.body as any).threads.map((x: any) => x.id), [d.topic_id])
    t.match((show.body as any).threads[0], { topicable_type: "Discussion", topicable_id: d.id, items_count: 8, replies_count: 7, private: true })
    t.same((show.body as any).meta, { root: "threads" })
  })

  t.test("a standalone poll's thread: listed, shown, its items served", async (t) => {
    const res = await A.post("api/b2/polls", { json: { group_id: board.id, title: "Lunch?", poll_type: "proposal", options: ["agree", "disagree"] } })
    t.equal(res.statusCode, 200)
    const poll = (res.body as any).polls[0]
    t.equal((await B.get(`api/b2/threads/${poll.topic_id}`)).statusCode, 200)
    const items = await B.get(`api/b2/threads/${poll.topic_id}/items`)
    t.equal(items.statusCode, 200)
    t.equal((items.body as any).items[0].itemable_type, "Poll")
    t.same((items.body as any).discussions, [])
    t.equal((await O.get(`api/b2/threads/${poll.topic_id}/items`)).statusCode, 404)
  })

  t.test("an invisible thread is 404 on every thread endpoint", async (t) => {
    for (const path of ["", "/items", "/markdown"]) {
      const res = await O.get(`api/b2/threads/${d.topic_id}${path}`)
      t.equal(res.statusCode, 404, `outsider ${path}`)
      t.same(res.body, { error: "Not found" })
      t.equal((await A.get(`api/b2/threads/987654${path}`)).statusCode, 404, `unknown ${path}`)
      t.equal((await A.get(`api/b2/threads/abc${path}`)).statusCode, 404, `malformed ${path}`)
    }
    t.equal((await s.api.get(`api/b2/threads/${d.topic_id}?api_key=${ada.apiKey}`)).statusCode, 403, "a key in the query string is refused")
  })

  t.test("guests: invited people read and comment in that thread only", async (t) => {
    const guest = await seedUser(s.convene, { name: "Gus" })
    const G = s.as(guest.apiKey)
    t.equal((await G.get(`api/b2/threads/${d.topic_id}`)).statusCode, 404)
    t.equal((await G.post("api/b2/comments", { json: { discussion_id: d.id, body: "hi" } })).statusCode, 403)
    t.equal((await B.patch(`api/b2/discussions/${d.id}`, { json: { recipient_user_ids: [guest.user.id] } })).statusCode, 200)
    t.equal((await G.get(`api/b2/threads/${d.topic_id}`)).statusCode, 200)
    t.match(((await G.get(`api/b2/threads/${d.topic_id}/markdown`)).body as any).markdown, /^# Discussion: A clearer thread/m)
    t.equal((await G.get(`api/b2/discussions/${d.id}`)).statusCode, 200)
    t.same(((await G.get("api/b2/threads")).body as any).threads.map((x: any) => x.id).includes(d.topic_id), true)
    const said = await G.post("api/b2/comments", { json: { discussion_id: d.id, body: "Thanks for having me" } })
    t.equal(said.statusCode, 200)
    t.equal((await G.get(`api/b2/discussions?group_id=${board.id}`)).statusCode, 403, "the group itself stays hidden")
    t.same((await s.sql("SELECT kind, recipient_user_id FROM mail_outbox WHERE recipient_user_id = ?", guest.user.id)), [
      { kind: "thread_invitation", recipient_user_id: guest.user.id }
    ])
  })

  t.test("reactions: side-loaded, own only, idempotent, only for participants", async (t) => {
    const again = await post(A, "api/b2/reactions", { reaction: { reactable_type: "Comment", reactable_id: c1.id, reaction: "👍" } })
    t.equal((await s.sql<any>("SELECT count(*) AS n FROM reactions WHERE reactable_id = ? AND user_id = ?", c1.id, ada.user.id))[0].n, 1)
    matchExact(t, again, { reactions: [{ reactable_type: "Comment", reactable_id: c1.id, user_id: ada.user.id, reaction: "👍" }], meta: { root: "reactions" } })
    const onDiscussion = await A.post("api/b2/reactions", { json: { reactable_type: "Discussion", reactable_id: d.id, reaction: ":heart:" } })
    t.equal(onDiscussion.statusCode, 200)
    t.match(((await A.get(`api/b2/threads/${d.topic_id}/markdown`)).body as any).markdown, /^# Discussion: A clearer thread · Ada · 2026-07-15 10:00 · :heart: Ada$/m)
    t.equal((await A.delete(`api/b2/reactions/${catThumb.id}`)).statusCode, 403, "not someone else's")
    t.equal((await C.delete(`api/b2/reactions/${catThumb.id}`)).statusCode, 200)
    t.same((await C.delete(`api/b2/reactions/${catThumb.id}`)).statusCode, 404)
    t.match(((await B.get(`api/b2/threads/${d.topic_id}/markdown`)).body as any).markdown, /#1 · 👍 Ada · 🎉 Bob\n/)
    const bad: Array<[object, number]> = [
      [{ reactable_type: "Comment", reactable_id: c1.id, reaction: " " }, 422],
      [{ reactable_type: "Widget", reactable_id: c1.id, reaction: "x" }, 400],
      [{ reactable_type: "Comment", reactable_id: c1.id }, 400],
      [{ reactable_type: "Comment", reactable_id: 999999, reaction: "x" }, 404],
      [{ reactable_type: "Poll", reactable_id: 99999, reaction: "x" }, 404],
      [{ reactable_type: "Comment", reactable_id: c5.id, reaction: "x" }, 404]
    ]
    for (const [json, status] of bad) t.equal((await A.post("api/b2/reactions", { json })).statusCode, status, JSON.stringify(json))
    t.equal((await O.post("api/b2/reactions", { json: { reactable_type: "Comment", reactable_id: c1.id, reaction: "x" } })).statusCode, 404, "unreadable")
    const pub = (await post(A, "api/b2/discussions", { group_id: org.id, title: "Public" })).discussions[0]
    t.equal((await O.post("api/b2/reactions", { json: { reactable_type: "Discussion", reactable_id: pub.id, reaction: "x" } })).statusCode, 403, "readable but not a participant")
  })
})
