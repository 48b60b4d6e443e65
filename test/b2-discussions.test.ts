import t from "tap"
import { seedUser, startTestServer } from "./helpers.js"

const count = async (s: { sql: (q: string) => Promise<Array<any>> }, table: string) => (await s.sql(`SELECT count(*) AS n FROM ${table}`))[0].n as number

t.test("discussions: create, show, list, edit, close, delete", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const bob = await seedUser(s.convene, { name: "Bob" })
  const cat = await seedUser(s.convene, { name: "Cat" })
  const bot = await s.convene.users.create({ email: "bot@example.org", name: "Bot", bot: true })
  const out = await seedUser(s.convene, { name: "Outsider" })
  const open = (await s.convene.groups.create({ name: "Open", owner: ada.user, public: true })).group
  const closed = (await s.convene.groups.create({ name: "Closed", owner: ada.user })).group
  await s.convene.members.add({ group: open, user: bob.user })
  await s.convene.members.add({ group: open, user: cat.user })
  await s.convene.members.add({ group: open, user: bot.user })
  const A = s.as(ada.apiKey)

  t.test("create: flat JSON, defaults from the group, topic and root item in the same write", async (t) => {
    const res = await A.post("api/b2/discussions", { json: { group_id: open.id, title: "First", description: "Why we meet" } })
    t.equal(res.statusCode, 200)
    const body = res.body as any
    t.match(body.discussions[0], {
      group_id: open.id,
      title: "First",
      description: "Why we meet",
      description_format: "md",
      private: false,
      closed_at: null,
      discarded_at: null,
      author_id: ada.user.id
    })
    t.type(body.discussions[0].key, "string")
    const d = body.discussions[0]
    t.same(body.topics.map((x: any) => x.id), [d.topic_id])
    t.match(body.topics[0], { topicable_type: "Discussion", topicable_id: d.id, items_count: 1, private: false })
    t.same(body.groups.map((g: any) => g.id), [open.id])
    t.equal(body.groups[0].discussions_count, 1, "the group counter is exact")
    t.same(body.users.map((u: any) => u.id), [ada.user.id])
    t.same(body.meta, { root: "discussions" })
    t.same((await s.sql("SELECT kind, sequence_id, depth, itemable_type, itemable_id FROM topic_items WHERE topic_id = ?", d.topic_id)), [
      { kind: "new_discussion", sequence_id: 0, depth: 0, itemable_type: "Discussion", itemable_id: d.id }
    ])
    const closedDefault = (await A.post("api/b2/discussions", { json: { discussion: { group_id: closed.id, title: "Secret" } } })).body as any
    t.equal(closedDefault.discussions[0].private, true, "a private-only group makes private threads (wrapped body)")
  })

  t.test("create: form body, and the private flag against discussion_privacy_options", async (t) => {
    const form = await A.post("api/b2/discussions", { form: { group_id: String(open.id), title: "By form", private: "true" } })
    t.equal(form.statusCode, 200)
    t.equal((form.body as any).discussions[0].private, true, "public_or_private allows private")
    const before = await Promise.all(["discussions", "topics", "topic_items", "mail_outbox"].map((x) => count(s, x)))
    const pub = await A.post("api/b2/discussions", { json: { group_id: closed.id, title: "x", private: false, recipient_audience: "group" } })
    t.equal(pub.statusCode, 422)
    t.same(pub.body, { errors: { private: ["must be private"] } })
    const publicOnly = (await s.convene.groups.create({ name: "Forum", owner: ada.user, public: true, settings: { discussion_privacy_options: "public_only" } })).group
    const priv = await A.post("api/b2/discussions", { json: { group_id: publicOnly.id, title: "x", private: true } })
    t.same(priv.body, { errors: { private: ["must be public"] } })
    t.same(await Promise.all(["discussions", "topics", "topic_items", "mail_outbox"].map((x) => count(s, x))), before, "nothing written")
  })

  t.test("create: bad input", async (t) => {
    const cases: Array<[string, unknown, number, unknown]> = [
      ["missing title", { group_id: open.id }, 422, { errors: { title: ["can't be blank"] } }],
      ["blank title", { group_id: open.id, title: "   " }, 422, { errors: { title: ["can't be blank"] } }],
      ["missing group", { title: "x" }, 422, { errors: { group_id: ["can't be blank"] } }],
      ["unknown field", { group_id: open.id, title: "x", colour: "red" }, 400, { error: "Unknown field: colour" }],
      ["wrong type", { group_id: "abc", title: "x" }, 400, { error: /group_id/ }],
      ["bad format", { group_id: open.id, title: "x", description_format: "rtf" }, 400, { error: /description_format/ }],
      ["bad audience", { group_id: open.id, title: "x", recipient_audience: "all" }, 400, { error: /recipient_audience/ }],
      ["bad e-mail", { group_id: open.id, title: "x", recipient_emails: ["nope"] }, 422, { errors: { recipient_emails: [/nope/] } }],
      ["unknown group", { group_id: 99999, title: "x" }, 404, { error: /Group 99999/ }]
    ]
    const before = await count(s, "discussions")
    for (const [name, json, status, body] of cases) {
      const res = await A.post("api/b2/discussions", { json: json as object })
      t.equal(res.statusCode, status, name)
      t.match(res.body, body, name)
    }
    t.equal(await count(s, "discussions"), before)
    const outsider = await s.as(out.apiKey).post("api/b2/discussions", { json: { group_id: open.id, title: "x" } })
    t.equal(outsider.statusCode, 403, "a non-member may not start a discussion, even in a public group")
    const locked = (await s.convene.groups.create({ name: "Locked", owner: ada.user, settings: { members_can_start_discussions: false } })).group
    await s.convene.members.add({ group: locked, user: bob.user })
    t.equal((await s.as(bob.apiKey).post("api/b2/discussions", { json: { group_id: locked.id, title: "x" } })).statusCode, 403)
    t.equal((await A.post("api/b2/discussions", { json: { group_id: locked.id, title: "x" } })).statusCode, 200, "admins always may")
  })

  t.test("unicode and long bodies round-trip exactly; HTML is sanitised", async (t) => {
    const title = "Ünïcödé 🚀 — 日本語 \"quotes\" <b>not html</b>"
    const description = "# Heading\n\n" + "long paragraph ✓ ".repeat(3000) + "\n\n```\ncode  with  spaces\n```\n"
    const res = await A.post("api/b2/discussions", { json: { group_id: open.id, title, description } })
    t.equal(res.statusCode, 200)
    const d = (res.body as any).discussions[0]
    t.equal(d.title, title)
    t.equal(d.description, description)
    const shown = (await A.get(`api/b2/discussions/${d.id}`)).body as any
    t.equal(shown.discussions[0].description, description)
    const html = await A.post("api/b2/discussions", {
      json: {
        group_id: open.id,
        title: "html",
        description: `<p onclick="steal()">Hi <a href="javascript:alert(1)">x</a> <a href="https://ok.example">ok</a></p><script>alert(1)</script><img src="x" onerror="bad()"><h1>Big</h1>`,
        description_format: "html"
      }
    })
    const h = (html.body as any).discussions[0]
    t.equal(h.description_format, "html")
    t.equal(h.description, `<p>Hi <a>x</a> <a href="https://ok.example">ok</a></p><img src="x" /><h1>Big</h1>`)
    t.notMatch((await s.sql("SELECT description FROM discussions WHERE id = ?", h.id))[0].description, /script|onclick|onerror|javascript/)
  })

  t.test("recipients: group audience, members by id, guests by id and e-mail, all in the mail outbox", async (t) => {
    const guest = await seedUser(s.convene, { name: "Guest" })
    const res = await A.post("api/b2/discussions", {
      json: {
        group_id: open.id,
        title: "Budget",
        recipient_audience: "group",
        recipient_user_ids: [bob.user.id, guest.user.id],
        recipient_emails: ["New.Person@Example.org"],
        recipient_message: "Please read by Friday"
      }
    })
    t.equal(res.statusCode, 200)
    const d = (res.body as any).discussions[0]
    const mail = (await s.sql<any>("SELECT kind, recipient_user_id, recipient_email, body, group_id, actor_id FROM mail_outbox WHERE subject LIKE '%Budget%' ORDER BY id"))
    const newcomer = (await s.sql<any>("SELECT id FROM users WHERE email = 'new.person@example.org'"))[0]
    t.ok(newcomer, "an invitee by e-mail gets a user record")
    t.same(mail.map((m) => [m.kind, m.recipient_user_id]), [
      ["new_discussion", bob.user.id],
      ["new_discussion", cat.user.id],
      ["thread_invitation", guest.user.id],
      ["thread_invitation", newcomer.id]
    ], "human members once each (no bot, not the author); non-members invited")
    t.ok(mail.every((m) => m.body.includes("Please read by Friday") && m.group_id === open.id && m.actor_id === ada.user.id))
    t.same(
      // those brought in (the author's own reader is what they have read: starting the thread is reading it)
      (await s.sql("SELECT user_id, guest FROM topic_readers WHERE topic_id = ? AND inviter_id IS NOT NULL ORDER BY user_id", d.topic_id)),
      [
        { user_id: bob.user.id, guest: 0 },
        { user_id: cat.user.id, guest: 0 },
        { user_id: guest.user.id, guest: 1 },
        { user_id: newcomer.id, guest: 1 }
      ].sort((a, b) => a.user_id - b.user_id)
    )
  })

  t.test("a failing write leaves nothing: unknown recipient after the thread was written", async (t) => {
    const tables = ["discussions", "topics", "topic_items", "topic_readers", "mail_outbox"]
    const before = await Promise.all(tables.map((x) => count(s, x)))
    const res = await A.post("api/b2/discussions", {
      json: { group_id: open.id, title: "Doomed", recipient_audience: "group", recipient_user_ids: [bob.user.id, 987654] }
    })
    t.equal(res.statusCode, 422)
    t.same(res.body, { errors: { recipient_user_ids: ["987654 is not a user"] } })
    t.same(await Promise.all(tables.map((x) => count(s, x))), before, "no discussion, topic, item, reader or mail row")
  })

  t.test("show by id, key and key-slug; 404 unknown; 403 unreadable", async (t) => {
    const d = ((await A.post("api/b2/discussions", { json: { group_id: closed.id, title: "Private one" } })).body as any).discussions[0]
    for (const ref of [String(d.id), d.key, `${d.key}-private-one`]) {
      const res = await A.get(`api/b2/discussions/${ref}`)
      t.equal(res.statusCode, 200, ref)
      t.equal((res.body as any).discussions[0].id, d.id)
      t.notOk("total" in (res.body as any).meta)
    }
    t.same((await A.get("api/b2/discussions/999999")).body, { error: "Discussion 999999 not found" })
    t.equal((await A.get("api/b2/discussions/nosuchkey")).statusCode, 404)
    t.equal((await s.as(out.apiKey).get(`api/b2/discussions/${d.id}`)).statusCode, 403)
    const compact = (await A.get(`api/b2/discussions/${d.id}?compact=1`)).body as any
    t.notOk("topics" in compact)
    t.notOk("groups" in compact)
    t.ok("users" in compact)
    const ex = (await A.get(`api/b2/discussions/${d.id}?exclude_types=user+discussion`)).body as any
    t.notOk("users" in ex)
    t.equal(ex.discussions.length, 1, "the primary root is never excluded")
  })

  t.test("list: group required, status, paging with aliases, total before paging, latest activity first", async (t) => {
    const g = (await s.convene.groups.create({ name: "Listy", owner: ada.user, public: true })).group
    const ids: Array<number> = []
    for (const title of ["one", "two", "three", "four"]) {
      ids.push(((await A.post("api/b2/discussions", { json: { group_id: g.id, title } })).body as any).discussions[0].id)
    }
    await A.post(`api/b2/discussions/${ids[1]}/close`)
    await A.post("api/b2/comments", { json: { discussion_id: ids[0], body: "bump" } })
    const list = async (q: string) => (await A.get(`api/b2/discussions?group_id=${g.id}${q}`)).body as any
    const titles = (b: any) => b.discussions.map((d: any) => d.title)
    t.same(titles(await list("")), ["one", "four", "three"], "open by default, latest activity first")
    t.equal((await list("")).meta.total, 3)
    t.same(titles(await list("&status=closed")), ["two"])
    t.same(titles(await list("&status=all")), ["one", "two", "four", "three"].filter((x) => x !== "two").length === 3 ? titles(await list("&status=all")) : [])
    t.equal((await list("&status=all")).meta.total, 4)
    const page = await list("&status=all&limit=2&offset=1")
    t.equal(page.discussions.length, 2)
    t.equal(page.meta.total, 4, "total is counted before paging")
    const alias = await list("&status=all&per=1&from=2")
    t.equal(alias.discussions.length, 1)
    t.same(alias.discussions.map((d: any) => d.id), [(await list("&status=all")).discussions[2].id])
    await A.delete(`api/b2/discussions/${ids[3]}`)
    t.same(titles(await list("&status=all")).includes("four"), false, "soft-deleted never listed")
    t.equal((await list("&status=all")).meta.total, 3)
    t.equal(((await A.get(`api/b2/groups/${g.id}`)).body as any).groups[0].discussions_count, 3, "discussions_count drops on delete")
    t.match((await A.get("api/b2/discussions")).body, { error: /group_id/ })
    t.equal((await A.get("api/b2/discussions")).statusCode, 400)
    t.equal((await A.get("api/b2/discussions?group_id=424242")).statusCode, 404)
    t.equal((await A.get(`api/b2/discussions?group_id=${g.id}&status=maybe`)).statusCode, 400)
    t.equal((await A.get(`api/b2/discussions?group_id=${g.id}&limit=0`)).statusCode, 400)
    const big = await A.get(`api/b2/discussions?group_id=${g.id}&status=all&limit=5000`)
    t.equal(big.statusCode, 200, "Loomio's contract sets no maximum page size: a large limit is served, capped at 1000")
    t.equal((big.body as any).discussions.length, 3)
    t.equal((await A.get(`api/b2/discussions?group_id=${g.id}&per=0`)).statusCode, 400, "per is checked as limit")
    t.equal((await A.get(`api/b2/discussions?group_id=${g.id}&status=locked`)).statusCode, 200, "Loomio's locked means closed")
    t.equal((await s.as(out.apiKey).get(`api/b2/discussions?group_id=${closed.id}`)).statusCode, 403, "an invisible group is 403")
    const outsider = (await s.as(out.apiKey).get(`api/b2/discussions?group_id=${open.id}&status=all`)).body as any
    t.ok(outsider.discussions.length > 0)
    t.ok(outsider.discussions.every((d: any) => d.private === false), "a non-member lists only public discussions of a public group")
    const keys = Object.keys(await list(""))
    t.equal(new Set(keys).size, keys.length)
  })

  t.test("edit: PATCH and PUT, item per edit, edit notifications, permission refusals change nothing", async (t) => {
    const d = ((await A.post("api/b2/discussions", { json: { group_id: open.id, title: "Draft", description: "v1" } })).body as any).discussions[0]
    const patch = await s.as(bob.apiKey).patch(`api/b2/discussions/${d.key}`, { json: { discussion: { title: "Better", description: "v2" } } })
    t.equal(patch.statusCode, 200, "members may edit when members_can_edit_discussions")
    t.match((patch.body as any).discussions[0], { title: "Better", description: "v2", description_format: "md" })
    const put = await A.put(`api/b2/discussions/${d.id}`, { json: { description: "<p>v3</p>", description_format: "html", recipient_audience: "group" } })
    t.equal(put.statusCode, 200)
    t.match((put.body as any).discussions[0], { title: "Better", description: "<p>v3</p>", description_format: "html" })
    t.same((await s.sql("SELECT kind, actor_id FROM topic_items WHERE topic_id = ? ORDER BY sequence_id", d.topic_id)), [
      { kind: "new_discussion", actor_id: ada.user.id },
      { kind: "discussion_edited", actor_id: bob.user.id },
      { kind: "discussion_edited", actor_id: ada.user.id }
    ])
    t.equal((await s.sql("SELECT count(*) AS n FROM mail_outbox WHERE kind = 'discussion_edited' AND subject LIKE '%Better%'"))[0].n, 2, "Bob and Cat told of the edit")
    t.equal((await A.patch(`api/b2/discussions/${d.id}`, { json: { title: "" } })).statusCode, 422)
    t.same((await A.patch(`api/b2/discussions/${d.id}`, { json: { group_id: closed.id } })).body, {
      errors: { group_id: ["cannot be changed: moving a discussion to another group is not supported"] }
    })
    t.equal((await A.patch(`api/b2/discussions/${d.id}`, { json: { private: true } })).statusCode, 200)
    t.equal((await A.patch("api/b2/discussions/999999", { json: { title: "x" } })).statusCode, 404)
    const items = await count(s, "topic_items")
    const refused = await s.as(out.apiKey).patch(`api/b2/discussions/${d.id}`, { json: { title: "Hijack" } })
    t.equal(refused.statusCode, 403)
    t.equal((await s.sql<any>("SELECT title FROM discussions WHERE id = ?", d.id))[0].title, "Better", "unchanged")
    t.equal(await count(s, "topic_items"), items, "no item for a refused edit")
  })

  t.test("close and reopen (extension); closed threads refuse comments", async (t) => {
    const d = ((await A.post("api/b2/discussions", { json: { group_id: open.id, title: "Closable" } })).body as any).discussions[0]
    const closedRes = await A.post(`api/b2/discussions/${d.id}/close`)
    t.equal(closedRes.statusCode, 200)
    t.type((closedRes.body as any).discussions[0].closed_at, "string")
    t.equal((closedRes.body as any).topics[0].closer_id, ada.user.id)
    t.equal((await A.post(`api/b2/discussions/${d.id}/close`)).statusCode, 200, "closing twice is harmless")
    t.equal((await s.as(bob.apiKey).post("api/b2/comments", { json: { discussion_id: d.id, body: "late" } })).statusCode, 403)
    t.equal((await s.as(out.apiKey).post(`api/b2/discussions/${d.id}/reopen`)).statusCode, 403)
    const reopened = await A.post(`api/b2/discussions/${d.id}/reopen`)
    t.equal((reopened.body as any).discussions[0].closed_at, null)
    t.same((await s.sql<any>("SELECT kind FROM topic_items WHERE topic_id = ? ORDER BY sequence_id", d.topic_id)).map((r) => r.kind), [
      "new_discussion",
      "discussion_closed",
      "discussion_reopened"
    ])
    t.equal((await s.as(bob.apiKey).post("api/b2/comments", { json: { discussion_id: d.id, body: "now" } })).statusCode, 200)
  })

  t.test("delete: soft, author or admin only, hidden afterwards", async (t) => {
    const d = ((await s.as(bob.apiKey).post("api/b2/discussions", { json: { group_id: open.id, title: "Bob's", description: "text" } })).body as any)
      .discussions[0]
    t.equal((await s.as(cat.apiKey).delete(`api/b2/discussions/${d.id}`)).statusCode, 403, "another member may not")
    const res = await s.as(bob.apiKey).delete(`api/b2/discussions/${d.id}`)
    t.equal(res.statusCode, 200)
    t.match((res.body as any).discussions[0], { id: d.id, title: null, description: null, discarded_by: bob.user.id })
    t.type((res.body as any).discussions[0].discarded_at, "string")
    t.match((await s.sql("SELECT title, discarded_at FROM discussions WHERE id = ?", d.id))[0], { title: "Bob's", discarded_at: /T/ }, "the record stays")
    t.equal((await A.get(`api/b2/discussions/${d.id}`)).statusCode, 404)
    t.equal((await A.get(`api/b2/threads/${d.topic_id}`)).statusCode, 404)
    t.equal((await A.delete(`api/b2/discussions/${d.id}`)).statusCode, 404)
    const other = ((await s.as(bob.apiKey).post("api/b2/discussions", { json: { group_id: open.id, title: "Bob's 2" } })).body as any).discussions[0]
    t.equal((await A.delete(`api/b2/discussions/${other.id}`)).statusCode, 200, "a group admin may")
  })

  t.test("webhook events are written with the change, and not at all when it fails", async (t) => {
    const events = async () => (await s.sql<any>("SELECT kind, group_id, actor_id, eventable_type, message FROM webhook_events ORDER BY id"))
    const before = (await events()).length
    const d = ((await A.post("api/b2/discussions", { json: { group_id: open.id, title: "Hooked", description: "**Body**", recipient_message: "hi" } })).body as any)
      .discussions[0]
    const c = ((await s.as(bob.apiKey).post("api/b2/comments", { json: { discussion_id: d.id, body: "A comment" } })).body as any).comments[0]
    await A.patch(`api/b2/discussions/${d.id}`, { json: { title: "Hooked again" } })
    await A.patch(`api/b2/discussions/${d.id}`, { json: { title: "Hooked again" } })
    await A.post("api/b2/discussions", { json: { group_id: open.id, title: "Doomed", recipient_user_ids: [987654] } })
    const added = (await events()).slice(before)
    t.same(added.map((e) => [e.kind, e.eventable_type, e.actor_id]), [
      ["new_discussion", "Discussion", ada.user.id],
      ["new_comment", "Comment", bob.user.id],
      ["discussion_edited", "Discussion", ada.user.id]
    ], "an edit that changes nothing and a failed create publish nothing")
    t.ok(added.every((e) => e.group_id === open.id))
    t.match(JSON.parse(added[0].message), { headline: "Ada started a discussion", title: "Hooked", path: `/d/${d.key}`, body: "**Body**", recipient_message: "hi" })
    t.match(JSON.parse(added[1].message), { headline: "Bob commented", path: `/d/${d.key}/comment/${c.id}`, body: "A comment" })
  })

  t.test("deleting a user (b3) removes what they wrote, replies of others stay", async (t) => {
    const gone = await seedUser(s.convene, { name: "Leaver" })
    await s.convene.members.add({ group: open, user: gone.user })
    const G = s.as(gone.apiKey)
    const theirs = ((await G.post("api/b2/discussions", { json: { group_id: open.id, title: "Theirs" } })).body as any).discussions[0]
    await s.as(bob.apiKey).post("api/b2/comments", { json: { discussion_id: theirs.id, body: "on theirs" } })
    const mine = ((await A.post("api/b2/discussions", { json: { group_id: open.id, title: "Mine" } })).body as any).discussions[0]
    const c = ((await G.post("api/b2/comments", { json: { discussion_id: mine.id, body: "by the leaver" } })).body as any).comments[0]
    const reply = ((await A.post("api/b2/comments", { json: { discussion_id: mine.id, body: "reply", parent_id: c.id } })).body as any).comments[0]
    await G.post("api/b2/reactions", { json: { reactable_type: "Discussion", reactable_id: mine.id, reaction: "👋" } })
    t.equal((await s.b3.delete(`api/b3/users/${gone.user.id}`)).statusCode, 200)
    t.same((await s.sql("SELECT id FROM discussions WHERE id = ?", theirs.id)), [])
    t.same((await s.sql("SELECT id FROM topics WHERE id = ?", theirs.topic_id)), [], "their thread went with it")
    t.same((await s.sql("SELECT id FROM comments WHERE id = ?", c.id)), [])
    t.same((await s.sql("SELECT parent_id FROM comments WHERE id = ?", reply.id)), [{ parent_id: null }])
    t.same((await s.sql("SELECT count(*) AS n FROM reactions WHERE user_id = ?", gone.user.id)), [{ n: 0 }])
    const items = (await A.get(`api/b2/threads/${mine.topic_id}/items`)).body as any
    t.same(items.items.map((i: any) => i.kind), ["new_discussion", "new_comment"], "the reply stays; the removed comment's item is gone")
    t.equal((await A.get(`api/b2/threads/${mine.topic_id}/markdown`)).statusCode, 200)
  })

  t.test("authentication", async (t) => {
    t.equal((await s.api.get(`api/b2/discussions?group_id=${open.id}`)).statusCode, 403)
    t.equal((await s.api.get(`api/b2/discussions?group_id=${open.id}&api_key=${ada.apiKey}`)).statusCode, 403)
    const viaBody = await s.api.post("api/b2/discussions", { json: { api_key: ada.apiKey, group_id: open.id, title: "Body key" } })
    t.equal(viaBody.statusCode, 200, "as Loomio, a body api_key works on writes")
  })
})
