import t from "tap"
import { startTestServer, future } from "./helpers.js"
import { matchExact } from "./match.js"


t.test("GET /api/b2/search", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const mk = (name: string, extra: { is_admin?: boolean } = {}) => s.convene.users.create({ email: `${name.toLowerCase()}@example.org`, name, ...extra })
  const ada = await mk("Ada")
  const ann = await mk("Ann")
  const olga = await mk("Olga")
  const ivan = await mk("Ivan", { is_admin: true })
  const pub = (await s.convene.groups.create({ name: "Open", owner: ada.user, public: true })).group
  const priv = (await s.convene.groups.create({ name: "Board", owner: ada.user })).group
  const sub = (await s.convene.groups.create({ name: "Finance", owner: ada.user, parent: priv })).group
  await s.convene.members.add({ group: priv, user: ann.user })
  const A = s.as(ada.apiKey), N = s.as(ann.apiKey), O = s.as(olga.apiKey), I = s.as(ivan.apiKey)
  const ok = async (p: Promise<any>) => {
    const r = await p
    if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${JSON.stringify(r.body)}`)
    return r.body as any
  }
  const discuss = async (who: any, group: number, title: string, description = "") =>
    (await ok(who.post("api/b2/discussions", { json: { group_id: group, title, description } }))).discussions[0]
  const comment = async (who: any, discussion_id: number, body: string, body_format = "md") =>
    (await ok(who.post("api/b2/comments", { json: { discussion_id, body, body_format } }))).comments[0]
  const search = async (who: any, q: string) => {
    const res = await who.get(`api/b2/search?${q}`)
    if (res.statusCode !== 200) throw new Error(`${q}: ${res.statusCode} ${JSON.stringify(res.body)}`)
    return res.body as any
  }
  const found = (body: any) => body.search_results.map((r: any) => `${r.searchable_type}:${r.searchable_id}`).sort()
  const key = (type: string, id: number) => `${type}:${id}`

  const garden = await discuss(A, pub.id, "Garden budget proposal", "We plan the **community garden** for spring.")
  const gardenComment = await comment(A, garden.id, "The budget looks reasonable to me.")
  const secret = await discuss(A, priv.id, "Secret budget negotiations", "Salaries and the budget.")
  const secretComment = await comment(N, secret.id, "I support these negotiations; we held several meetings.")
  const htmlComment = await comment(N, secret.id, "<p>Notes about <strong>strawberries</strong> &amp; cream</p>", "html")
  const finance = await discuss(A, sub.id, "Finance budget forecast")
  t.equal(garden.private, false, "a public group's thread is public")
  t.equal(secret.private, true)

  t.test("exact words, with the matched words marked and every result field", async (t) => {
    const body = await search(A, "query=budget")
    t.same(found(body), [key("Comment", gardenComment.id), key("Discussion", garden.id), key("Discussion", secret.id), key("Discussion", finance.id)].sort())
    t.same(Object.keys(body.meta), ["root"], "meta without total (not even null)")
    t.equal(body.meta.root, "search_results")
    const c = body.search_results.find((r: any) => r.searchable_type === "Comment")
    matchExact(t, c, {
      searchable_id: gardenComment.id, group_id: pub.id, group_name: "Open", discussion_key: garden.key, poll_key: null,
      author_id: ada.user.id, author_name: "Ada", tags: []
    })
    t.match(c.highlight, /The <b>budget<\/b> looks reasonable/)
    t.ok(c.authored_at, "authored_at")
    for (const field of ["searchable_type", "searchable_id", "highlight", "group_id", "group_name", "discussion_key", "poll_key", "author_id", "author_name", "authored_at", "tags"]) {
      t.ok(field in c, field)
    }
    const f = body.search_results.find((r: any) => r.searchable_id === finance.id)
    t.equal(f.group_name, "Board - Finance", "group_name is the full name")
    t.match(body.search_results.find((r: any) => r.searchable_id === garden.id && r.searchable_type === "Discussion").highlight, /<b>budget<\/b>/i)
    t.same(body.users.map((u: any) => u.id), [ada.user.id], "authors side-loaded")
    t.same(body.groups.map((g: any) => g.id).sort(), [pub.id, priv.id, sub.id].sort(), "groups side-loaded")
    const compact = await search(A, "query=budget&compact=1")
    t.notOk("groups" in compact, "compact leaves groups out")
  })

  t.test("stemming, prefixes, HTML bodies", async (t) => {
    t.same(found(await search(N, "query=meeting")), [key("Comment", secretComment.id)], "meeting finds meetings")
    t.same(found(await search(N, "query=negotiate")), [key("Comment", secretComment.id), key("Discussion", secret.id)].sort())
    t.same(found(await search(A, "query=gard")), [key("Discussion", garden.id)], "a prefix")
    const html = await search(N, "query=strawberries")
    t.same(found(html), [key("Comment", htmlComment.id)])
    t.equal(html.search_results[0].highlight, "Notes about <b>strawberries</b> &amp; cream", "tags stripped, text escaped")
    t.same(found(await search(N, "query=strong")), [], "HTML tag names are not words")
  })

  t.test("a one-letter typo still finds the record", async (t) => {
    t.same(found(await search(N, "query=negotiatons")), [key("Comment", secretComment.id), key("Discussion", secret.id)].sort(), "a letter missing")
    t.same(found(await search(O, "query=budjet")), [key("Comment", gardenComment.id), key("Discussion", garden.id)].sort(), "a letter changed")
    t.same(found(await search(N, "query=strawbreries")), [key("Comment", htmlComment.id)], "two letters swapped")
    t.same(found(await search(N, "query=salarys")), [key("Discussion", secret.id)])
    const hl = (await search(O, "query=budjet")).search_results[0].highlight
    t.match(hl, /<b>budget<\/b>/i, "the word meant is marked")
    t.same(found(await search(N, "query=xylophone")), [], "nothing close: nothing")
  })

  t.test("visibility: public without membership, private only with access, instance admin nothing more", async (t) => {
    t.same(found(await search(O, "query=budget")), [key("Comment", gardenComment.id), key("Discussion", garden.id)].sort(), "a non-member finds public content only")
    t.same(found(await search(I, "query=budget")), found(await search(O, "query=budget")), "an instance admin finds what anyone finds")
    t.same(found(await search(N, "query=budget")),
      [key("Comment", gardenComment.id), key("Discussion", garden.id), key("Discussion", secret.id)].sort(),
      "a member finds the private thread; not the subgroup she is not in")
    t.same(found(await search(O, "query=negotiations")), [])
    t.same(found(await search(O, `query=budget&group_id=${priv.id}`)), [], "naming a private group grants nothing")
  })

  t.test("filters: group_id, org_id, type, types, tag, author_id, order", async (t) => {
    t.same(found(await search(A, `query=budget&group_id=${priv.id}`)), [key("Discussion", secret.id)])
    t.same(found(await search(A, `query=budget&org_id=${priv.id}`)), [key("Discussion", secret.id), key("Discussion", finance.id)].sort(),
      "an organisation includes its subgroups")
    t.same(found(await search(A, `query=budget&org_id=${priv.id}&group_id=${sub.id}`)), [key("Discussion", finance.id)])
    t.same(found(await search(A, "query=budget&org_id=0")), [], "org_id=0: threads without a group only")
    t.same(found(await search(A, "query=budget&type=Comment")), [key("Comment", gardenComment.id)])
    t.same(found(await search(A, "query=budget&types=Comment,Poll")), [key("Comment", gardenComment.id)])
    t.same(found(await search(A, "query=budget&types=Discussion&group_id=" + pub.id)), [key("Discussion", garden.id)])
    await s.sql("UPDATE topics SET tags = ? WHERE id = ?", JSON.stringify(["garden", "spring"]), garden.topic_id)
    const tagged = await search(A, "query=budget&tag=garden")
    t.same(found(tagged), [key("Comment", gardenComment.id), key("Discussion", garden.id)].sort())
    t.same(tagged.search_results[0].tags, ["garden", "spring"])
    t.same(found(await search(A, "query=budget&tag=winter")), [])

    const annRecent = await search(A, `author_id=${ann.user.id}`)
    t.same(found(annRecent), [key("Comment", secretComment.id), key("Comment", htmlComment.id)].sort(), "without a query: the author's recent activity")
    t.ok(annRecent.search_results[0].authored_at >= annRecent.search_results[1].authored_at, "newest first")
    t.equal(annRecent.search_results.find((r: any) => r.searchable_id === htmlComment.id).highlight, "Notes about strawberries &amp; cream",
      "a plain excerpt")
    t.same(found(await search(O, `author_id=${ann.user.id}`)), [], "only what the caller may read")
    t.same(found(await search(A, `query=budget&author_id=${ann.user.id}`)), [])
    const ordered = (await search(A, "query=budget&order=authored_at_desc")).search_results.map((r: any) => r.authored_at)
    t.same(ordered, [...ordered].sort().reverse(), "order=authored_at_desc")
  })

  t.test("votes: hidden results and anonymous voters are never found", async (t) => {
    const poll = async (json: any) =>
      (await ok(A.post("api/b2/polls", { json: { group_id: priv.id, poll_type: "proposal", closing_at: future(), ...json } }))).polls[0]
    const vote = (who: any, poll_id: number, reason: string) => ok(who.post("api/b2/stances", { json: { poll_id, option_scores: { agree: 1 }, reason } }))
    const open = await poll({ title: "Open ballot about kayaks" })
    const untilVote = await poll({ title: "Until vote", hide_results: "until_vote" })
    const untilClosed = await poll({ title: "Until closed", hide_results: "until_closed" })
    const anon = await poll({ title: "Anonymous", anonymous: true })
    await vote(N, open.id, "kayaks are great")
    await vote(N, untilVote.id, "yaks are hairy")
    await vote(N, untilClosed.id, "zebras are striped")
    await vote(N, anon.id, "walruses are heavy")

    const kayak = await search(A, "query=kayaks")
    t.same(found(kayak), [key("Poll", open.id), key("Stance", (await s.sql<any>("SELECT id FROM stances WHERE poll_id = ? AND participant_id = ? AND latest = TRUE", open.id, ann.user.id))[0].id)].sort())
    const stance = kayak.search_results.find((r: any) => r.searchable_type === "Stance")
    t.match(stance, { poll_key: open.key, discussion_key: null, author_id: ann.user.id, author_name: "Ann", group_name: "Board" })

    t.same(found(await search(A, "query=yaks&type=Stance")), [], "until_vote: hidden from one who has not voted")
    t.same(found(await search(N, "query=yaks&type=Stance")).length, 1, "the voter sees it")
    await vote(A, untilVote.id, "")
    t.same(found(await search(A, "query=yaks&type=Stance")).length, 1, "found once the caller has voted")

    t.same(found(await search(A, "query=zebras")), [], "until_closed: hidden from everyone while open")
    t.same(found(await search(N, "query=zebras")), [], "even from the voter")
    await ok(A.post(`api/b2/polls/${untilClosed.id}/close`))
    t.same(found(await search(A, "query=zebras")).length, 1, "found once closed")

    t.same(found(await search(N, "query=walruses")), [], "an anonymous vote is never found, not even by its voter")
    await ok(A.post(`api/b2/polls/${anon.id}/close`))
    t.same(found(await search(A, "query=walruses")), [])
    t.same(found(await search(A, `author_id=${ann.user.id}&type=Stance`)).length, 3, "author listing shows no anonymous or hidden vote")
    t.same((await s.sql("SELECT count(*) AS n FROM search_documents d JOIN stances s ON d.searchable_type = 'Stance' AND s.id = d.searchable_id WHERE s.poll_id = ?", anon.id)),
      [{ n: 0 }], "anonymous votes are not even indexed")

    await vote(N, open.id, "canoes instead")
    t.same(found(await search(A, "query=kayaks&type=Stance")), [], "a replaced vote drops out")
    t.same(found(await search(A, "query=canoes")).length, 1)
    await ok(A.delete(`api/b2/polls/${open.id}`))
    t.same(found(await search(A, "query=canoes")), [], "a deleted poll's votes drop out")
    t.same(found(await search(A, "query=kayaks")), [])
  })

  t.test("soft-deleted records drop out", async (t) => {
    const d = await discuss(A, pub.id, "Ephemeral musings")
    const c = await comment(A, d.id, "An ephemeral thought")
    t.same(found(await search(O, "query=ephemeral")), [key("Comment", c.id), key("Discussion", d.id)].sort())
    await ok(A.delete(`api/b2/comments/${c.id}`))
    t.same(found(await search(O, "query=ephemeral")), [key("Discussion", d.id)])
    const c2 = await comment(A, d.id, "Another ephemeral thought")
    await ok(A.delete(`api/b2/discussions/${d.id}`))
    t.same(found(await search(A, "query=ephemeral")), [], "a deleted discussion takes its comments with it")
    t.same((await s.sql("SELECT count(*) AS n FROM search_documents WHERE searchable_type = 'Comment' AND searchable_id IN (?, ?)", c.id, c2.id)), [{ n: 1 }],
      "the deleted comment's document is gone; the other is hidden with its thread")
    await ok(A.patch(`api/b2/comments/${gardenComment.id}`, { json: { body: "The plan looks reasonable to me." } }))
    t.same(found(await search(A, "query=reasonable")), [key("Comment", gardenComment.id)])
    t.notOk(found(await search(A, "query=budget&type=Comment")).includes(key("Comment", gardenComment.id)), "an edit re-indexes")
  })

  t.test("what a person types is always text: FTS syntax never errors", async (t) => {
    for (const q of ["\"", "budget\"", "\"budget", "*", "bud*", "NEAR(budget garden)", "NEAR", "-budget", "budget -garden", "budget AND", "AND OR NOT",
      "(budget", "budget)", "((", "^budget", "budget:", "content:budget", "{budget garden}", "budget + garden", "'", "\\", "%", "_", "¿qué?",
      "😀", "a\u0000b", "budget OR garden", "\"\"\"\""]) {
      const res = await A.get("api/b2/search", { searchParams: { query: q } })
      t.equal(res.statusCode, 200, JSON.stringify(q))
    }
    t.same(found(await search(A, "query=" + encodeURIComponent("\"garden"))), found(await search(A, "query=garden")), "a quote is ignored")
    t.same(found(await search(A, "query=" + encodeURIComponent("budget OR xylophone"))), [],
      "OR is a word to match, not an operator")
    t.same(found(await search(A, "query=" + encodeURIComponent("-garden"))), found(await search(A, "query=garden")), "a minus is not a negation")
  })

  t.test("at most 20 results, no total", async (t) => {
    const d = await discuss(A, pub.id, "Orchard")
    for (let i = 0; i < 25; i++) await comment(A, d.id, `apple number ${i}`)
    const body = await search(O, "query=apple")
    t.equal(body.search_results.length, 20)
    t.notOk("total" in body.meta)
    t.equal((await search(O, "query=apple&type=Comment&order=authored_at_desc")).search_results[0].highlight, "<b>apple</b> number 24")
  })

  t.test("hidden votes never take the places of visible results", async (t) => {
    const p = (await ok(A.post("api/b2/polls", { json: { group_id: pub.id, title: "Hidden", poll_type: "proposal", closing_at: future(), hide_results: "until_closed" } }))).polls[0]
    for (let i = 0; i < 22; i++) {
      const voter = await mk(`Voter${i}`)
      await s.convene.members.add({ group: pub, user: voter.user })
      await ok(s.as(voter.apiKey).post("api/b2/stances", { json: { poll_id: p.id, option_scores: { agree: 1 }, reason: "quokka quokka quokka" } }))
    }
    const d = await discuss(A, pub.id, "Wildlife")
    for (let i = 0; i < 3; i++) await comment(A, d.id, `a quokka number ${i}`)
    const body = await search(O, "query=quokka")
    t.same(body.search_results.map((r: any) => r.searchable_type), ["Comment", "Comment", "Comment"],
      "the 22 hidden votes (better matches) are passed over and the comments behind them found")
    await ok(A.post(`api/b2/polls/${p.id}/close`))
    t.equal((await search(O, "query=quokka")).search_results.length, 20, "once closed, the votes are found too (20 at most)")
  })

  t.test("bad parameters are 400; no key is 403", async (t) => {
    for (const [q, word] of [["type=Group", "type"], ["types=Comment,Vote", "type"], ["order=newest", "order"], ["group_id=abc", "group_id"],
      ["org_id=-1", "org_id"], ["author_id=x", "author_id"], ["compact=2", "compact"]] as const) {
      const res = await A.get(`api/b2/search?query=budget&${q}`)
      t.equal(res.statusCode, 400, q)
      t.match((res.body as any).error, word)
    }
    t.equal((await s.api.get("api/b2/search?query=budget")).statusCode, 403)
    t.equal((await s.api.get(`api/b2/search?query=budget&api_key=${ada.apiKey}`)).statusCode, 403, "a query-string key is refused on b2")
    t.same((await search(A, "query=")).search_results.length > 0, true, "an empty query lists recent activity")
    t.same((await search(A, "query=%20-%20*")).search_results, [], "a query of punctuation only finds nothing")
  })
})
