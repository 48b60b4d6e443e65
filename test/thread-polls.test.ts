import t from "tap"
import { seedUser, startTestServer, future } from "./helpers.js"


t.test("polls, votes and outcomes in threads: items and the markdown document", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada" })
  const bob = await seedUser(s.convene, { name: "Bob" })
  const cat = await seedUser(s.convene, { name: "Cat" })
  const group = (await s.convene.groups.create({ name: "Board", owner: ada.user })).group
  await s.convene.members.add({ group, user: bob.user })
  await s.convene.members.add({ group, user: cat.user })
  const [A, B, C] = [ada, bob, cat].map((u) => s.as(u.apiKey))
  const post = async (client: typeof A, path: string, json: object) => {
    const res = await client.post(path, { json })
    if (res.statusCode !== 200) throw new Error(`${path} ${res.statusCode} ${JSON.stringify(res.body)}`)
    return res.body as any
  }

  const d = (await post(A, "api/b2/discussions", { group_id: group.id, title: "Budget", description: "Let us decide." })).discussions[0]
  const p = (await post(A, "api/b2/polls", {
    discussion_id: d.id, title: "Adopt the budget", poll_type: "proposal", options: ["agree", "disagree"], closing_at: future(), details: "# Why\n\nIt balances."
  })).polls[0]
  const bobVote = (await post(B, "api/b2/stances", { poll_id: p.id, option_scores: { agree: 1 }, reason: "Looks **fine**" })).stances[0]
  const catVote = (await post(C, "api/b2/stances", { poll_id: p.id, option_scores: { disagree: 1 } })).stances[0]
  const c1 = (await post(B, "api/b2/comments", { discussion_id: d.id, body: "Voted." })).comments[0]
  await post(A, `api/b2/polls/${p.id}/close`, {})
  const outcome = (await post(A, "api/b2/outcomes", { poll_id: p.id, statement: "Not adopted.", review_on: "2026-09-01" })).outcomes[0]
  await s.sql("UPDATE discussions SET key = 'budget1', created_at = '2026-07-15T10:00:00.000Z' WHERE id = ?", d.id)
  await s.sql("UPDATE topics SET last_activity_at = '2026-07-16T09:00:00.000Z' WHERE id = ?", d.topic_id)
  await s.sql("UPDATE polls SET created_at = '2026-07-15T10:05:00.000Z' WHERE id = ?", p.id)
  await s.sql("UPDATE stances SET cast_at = '2026-07-15T11:00:00.000Z' WHERE id = ?", bobVote.id)
  await s.sql("UPDATE stances SET cast_at = '2026-07-15T11:30:00.000Z' WHERE id = ?", catVote.id)
  await s.sql("UPDATE comments SET created_at = '2026-07-15T12:00:00.000Z' WHERE id = ?", c1.id)
  await s.sql("UPDATE outcomes SET created_at = '2026-07-16T09:00:00.000Z' WHERE id = ?", outcome.id)

  t.test("the markdown document: poll section, results table, vote lines, outcome", async (t) => {
    const md = ((await B.get(`api/b2/threads/${d.topic_id}/markdown`)).body as any).markdown
    const expected = [
      "---",
      'key: "budget1"',
      'group: "Board"',
      'created: "2026-07-15T10:00:00Z"',
      'last_activity: "2026-07-16T09:00:00Z"',
      "---",
      "",
      "# Discussion: Budget · Ada · 2026-07-15 10:00",
      "",
      "Let us decide.",
      "",
      "## Proposal: Adopt the budget · Ada · 2026-07-15 10:05 · #1",
      "",
      "- **Status:** Closed",
      "- **Options:** agree; disagree",
      "",
      "## Why",
      "",
      "It balances.",
      "",
      "### Current results",
      "",
      "| Option | Votes | % of votes cast | % of eligible voters | Voters |",
      "| --- | --- | --- | --- | --- |",
      "| agree | 1 | 50% | 33.33% | Bob |",
      "| disagree | 1 | 50% | 33.33% | Cat |",
      "| Undecided | 1 |  | 33.33% |  |",
      "",
      "> **Bob** voted **agree** · 2026-07-15 11:00 · #2",
      ">",
      "> Looks **fine**",
      "",
      "> **Cat** voted **disagree** · 2026-07-15 11:30 · #3",
      "",
      "> **Ada** shared an outcome · 2026-07-16 09:00 · #6",
      ">",
      "> - **Review date:** 2026-09-01",
      ">",
      "> Not adopted.",
      "",
      "> **Bob** · 2026-07-15 12:00 · #4",
      ">",
      "> Voted.",
      ""
    ].join("\n")
    t.equal(md, expected)
  })

  t.test("items side-load the poll, its options, the visible ballots and the outcome", async (t) => {
    const body = (await C.get(`api/b2/threads/${d.topic_id}/items`)).body as any
    t.same(body.items.map((i: any) => i.kind), ["new_discussion", "poll_created", "stance_created", "stance_created", "new_comment", "poll_closed_by_user", "outcome_created"])
    t.equal(body.polls[0].id, p.id)
    t.same(body.poll_options.map((o: any) => [o.name, o.total_score]), [["agree", 1], ["disagree", 1]])
    t.same(body.stances.map((x: any) => x.id).sort(), [bobVote.id, catVote.id].sort())
    t.equal(body.outcomes[0].statement, "Not adopted.")
    const compact = (await C.get(`api/b2/threads/${d.topic_id}/items?exclude_types=stance+poll`)).body as any
    t.notOk("stances" in compact)
    t.notOk("polls" in compact)
  })

  t.test("hidden results and anonymous polls stay hidden in the thread", async (t) => {
    const h = (await post(A, "api/b2/polls", { discussion_id: d.id, title: "Secret", poll_type: "poll", options: ["x", "y"], closing_at: future(), hide_results: "until_vote" })).polls[0]
    await post(B, "api/b2/stances", { poll_id: h.id, option_scores: { x: 1 }, reason: "hidden reason" })
    const cat1 = await C.get(`api/b2/threads/${d.topic_id}/markdown`)
    const md = (cat1.body as any).markdown as string
    t.match(md, /## Poll: Secret[^\n]*\n\n- \*\*Status:\*\* Open until [^\n]+\n- \*\*Options:\*\* x; y\n\n### Current results\n\n_Hidden until the viewer votes._/)
    t.notMatch(md, /hidden reason/)
    t.notMatch(md, /voted \*\*x\*\*/)
    const items = (await C.get(`api/b2/threads/${d.topic_id}/items`)).body as any
    t.notOk(items.stances.some((x: any) => x.poll_id === h.id), "no ballot of the hidden poll")
    t.notOk(items.items.some((i: any) => i.itemable_type === "Stance" && !items.stances.some((x: any) => x.id === i.itemable_id)),
      "no vote item without its visible ballot")
    await post(C, "api/b2/stances", { poll_id: h.id, option_scores: { y: 1 } })
    t.match(((await C.get(`api/b2/threads/${d.topic_id}/markdown`)).body as any).markdown, /\*\*Bob\*\* voted \*\*x\*\*[^\n]*\n>\n> hidden reason/, "shown once Cat voted")

    const anon = (await post(A, "api/b2/polls", { discussion_id: d.id, title: "Anon", poll_type: "proposal", closing_at: future(), anonymous: true })).polls[0]
    await post(B, "api/b2/stances", { poll_id: anon.id, option_scores: { agree: 1 }, reason: "anon reason" })
    const amd = ((await A.get(`api/b2/threads/${d.topic_id}/markdown`)).body as any).markdown as string
    t.match(amd, /- \*\*Anonymous voting:\*\* Yes/)
    t.match(amd, /\| agree \| 1 \| 100% \| 33\.33% \| Anonymous \|/)
    t.notMatch(amd, /anon reason/)
    t.notMatch(amd, /Bob\*\* voted \*\*agree\*\* · [^\n]*#\d+\n>\n> anon/)
  })

  t.test("a standalone poll's thread has its own document", async (t) => {
    const sp = (await post(A, "api/b2/polls", { group_id: group.id, title: "Lunch", poll_type: "meeting", options: ["2019-01-02", "2019-01-01"], closing_at: future() })).polls[0]
    await post(B, "api/b2/stances", { poll_id: sp.id, option_scores: { "2019-01-01": 2, "2019-01-02": 1 } })
    const md = ((await B.get(`api/b2/threads/${sp.topic_id}/markdown`)).body as any).markdown as string
    t.match(md, /^---\nkey: "[A-Za-z0-9]{8}"\ngroup: "Board"\n/)
    t.match(md, /\n# Poll: Lunch · Ada · \d{4}-\d\d-\d\d \d\d:\d\d\n\n## Poll\n\n- \*\*Status:\*\* Open until /)
    t.match(md, /\| Time \| Yes \| Maybe \| No \|\n\| --- \| --- \| --- \| --- \|\n\| 2019-01-01 \| 1 \| 0 \| 0 \|\n\| 2019-01-02 \| 0 \| 1 \| 0 \|/)
    t.match(md, /> \*\*Bob\*\* voted \*\*2019-01-01 2, 2019-01-02 1\*\* · /)
  })
})
