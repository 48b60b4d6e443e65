import t from "tap"
import { seedUser, startTestServer, future } from "./helpers.js"
import { matchExact } from "./match.js"


t.test("polls: create rules, voting, results, lifecycle, outcomes", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const admin = await seedUser(s.convene, { name: "Admin" })
  const ann = await seedUser(s.convene, { name: "Ann" })
  const ben = await seedUser(s.convene, { name: "Ben" })
  const outsider = await seedUser(s.convene, { name: "Out" })
  const group = (await s.convene.groups.create({ name: "G", owner: admin.user })).group
  await s.convene.members.add({ group, user: ann.user })
  await s.convene.members.add({ group, user: ben.user })
  const A = s.as(admin.apiKey), N = s.as(ann.apiKey), B = s.as(ben.apiKey), O = s.as(outsider.apiKey)
  const create = (json: any, who = A) => who.post("api/b2/polls", { json })
  const vote = (poll_id: number, option_scores: any, who = N, reason?: string) => who.post("api/b2/stances", { json: { poll_id, option_scores, reason } })

  t.test("a proposal in its own thread; every member gets a ballot; votes and results", async (t) => {
    const res = await create({ group_id: group.id, title: "Adopt the plan", poll_type: "proposal", closing_at: future(), details: "Details" })
    t.equal(res.statusCode, 200)
    const body = res.body as any
    const poll = body.polls[0]
    t.match(poll, { title: "Adopt the plan", poll_type: "proposal", group_id: group.id, discussion_id: null, voters_count: 3, decided_voters_count: 0 })
    t.ok(poll.opened_at, "opened (not a draft)")
    t.same(body.poll_options.map((o: any) => o.name), ["agree", "abstain", "disagree", "block"], "proposal default options")
    t.equal(body.topics[0].topicable_type, "Poll", "a standalone poll gets its own thread")
    t.same((await s.sql("SELECT count(*) AS n FROM stances WHERE poll_id = ? AND cast_at IS NULL", poll.id)), [{ n: 3 }])

    const v1 = await vote(poll.id, { agree: 1 }, N, "I like it")
    t.equal(v1.statusCode, 200)
    await vote(poll.id, { disagree: 1 }, B)
    const v3 = await vote(poll.id, { agree: 1 }, B, "Changed my mind")
    t.equal(v3.statusCode, 200)
    const shown = (await N.get(`api/b2/polls/${poll.key}`)).body as any
    const p = shown.polls[0]
    t.match(p, { voters_count: 3, decided_voters_count: 2, undecided_voters_count: 1, results_visible: true })
    const agree = p.results.find((r: any) => r.name === "agree")
    t.match(agree, { score: 2, voter_count: 2, votes_cast_percent: 100, voter_percent: 66.67 })
    t.same((await s.sql("SELECT count(*) AS n FROM stances WHERE poll_id = ? AND participant_id = ? AND latest = TRUE", poll.id, ben.user.id)), [{ n: 1 }],
      "one latest ballot per voter")
    t.same((await s.sql("SELECT count(*) AS n FROM stances WHERE poll_id = ? AND participant_id = ?", poll.id, ben.user.id)), [{ n: 2 }],
      "a changed vote is a new ballot replacing the old")
    const kinds = (await s.sql<any>("SELECT kind FROM topic_items WHERE topic_id = ? ORDER BY sequence_id", poll.topic_id)).map((r) => r.kind)
    t.same(kinds, ["poll_created", "stance_created", "stance_created", "stance_updated"])
    t.same(shown.stances.map((x: any) => [x.participant_id, x.option_scores]), [[ann.user.id, { agree: 1 }]], "the reader's own ballot only")

    t.test("ballot and poll-state errors are 422 and write nothing", async (t) => {
      const before = (await s.sql("SELECT count(*) AS n FROM stances"))
      for (const [scores, msg] of [[{ maybe: 1 }, /unknown option/], [{ agree: 1, disagree: 1 }, /exactly one/], [{ agree: 2 }, /exactly one/]] as const) {
        const r = await vote(poll.id, scores, N)
        t.equal(r.statusCode, 422, JSON.stringify(scores))
        t.match((r.body as any).errors.option_scores[0], msg)
      }
      t.equal((await vote(poll.id, { agree: "yes" }, N)).statusCode, 400, "a non-integer score is a type error")
      t.equal((await vote(poll.id, { agree: 1 }, O)).statusCode, 404, "an outsider cannot see the poll")
      t.equal((await vote(99999, { agree: 1 }, N)).statusCode, 404)
      t.same((await s.sql("SELECT count(*) AS n FROM stances")), before)
    })

    t.test("close, then voting is refused; outcome; reopen", async (t) => {
      t.equal((await N.post(`api/b2/polls/${poll.id}/close`)).statusCode, 403, "a plain member may not close another's poll")
      const closed = await A.post(`api/b2/polls/${poll.id}/close`)
      t.equal(closed.statusCode, 200)
      t.ok((closed.body as any).polls[0].closed_at)
      const late = await vote(poll.id, { agree: 1 }, N)
      t.equal(late.statusCode, 422)
      t.match((late.body as any).errors.poll_id[0], /closed/)
      t.equal((await A.post(`api/b2/polls/${poll.id}/close`)).statusCode, 422, "closing twice")
      const outcome = await A.post("api/b2/outcomes", { json: { poll_id: poll.id, statement: "We adopt it", review_on: future(24 * 365).slice(0, 10) } })
      t.equal(outcome.statusCode, 200)
      const ob = outcome.body as any
      t.equal(ob.outcomes[0].statement, "We adopt it")
      t.equal(ob.polls[0].current_outcome_id, ob.outcomes[0].id)
      const closedList = (await N.get(`api/b2/polls?group_id=${group.id}&status=closed`)).body as any
      t.same(closedList.polls.map((x: any) => x.id), [poll.id], "status=closed lists decided proposals")
      t.equal(closedList.outcomes[0].statement, "We adopt it", "with their outcome")
      const edited = await A.patch(`api/b2/outcomes/${ob.outcomes[0].id}`, { json: { statement: "We adopt it, amended" } })
      t.equal((edited.body as any).outcomes[0].statement, "We adopt it, amended")
      t.equal((await A.patch("api/b2/outcomes/99999", { json: { statement: "x" } })).statusCode, 404)
      t.equal((await A.post(`api/b2/polls/${poll.id}/reopen`, { json: {} })).statusCode, 400, "reopen needs closing_at")
      t.equal((await A.post(`api/b2/polls/${poll.id}/reopen`, { json: { closing_at: "2001-01-01T00:00:00Z" } })).statusCode, 422)
      const reopened = await A.post(`api/b2/polls/${poll.id}/reopen`, { json: { closing_at: future(72) } })
      t.equal(reopened.statusCode, 200)
      t.equal((reopened.body as any).polls[0].closed_at, null)
      t.equal((await vote(poll.id, { abstain: 1 }, N)).statusCode, 200, "voting works again")
    })
  })

  t.test("create rules", async (t) => {
    const discussion = (await A.post("api/b2/discussions", { json: { group_id: group.id, title: "Talk" } })).body as any
    const d = discussion.discussions[0]
    const other = (await s.convene.groups.create({ name: "Other", owner: admin.user })).group
    const inThread = await create({ group_id: other.id, discussion_id: d.id, title: "Which day", poll_type: "poll", options: ["Mon", "Tue"], closing_at: future() })
    t.equal(inThread.statusCode, 200)
    t.match((inThread.body as any).polls[0], { topic_id: d.topic_id, discussion_id: d.id, group_id: group.id }, "group_id ignored when discussion_id is sent")
    const byTopic = await create({ topic_id: d.topic_id, title: "By topic", poll_type: "count", closing_at: future() })
    t.equal((byTopic.body as any).polls[0].topic_id, d.topic_id, "topic_id attaches too")

    const draft = await create({ group_id: group.id, title: "Draft", poll_type: "poll", options: ["a", "b"] })
    const dp = (draft.body as any).polls[0]
    t.match(dp, { opened_at: null, closing_at: null, voters_count: 0 })
    const early = await vote(dp.id, { a: 1 })
    t.equal(early.statusCode, 422)
    t.match((early.body as any).errors.poll_id[0], /draft/)
    const opened = await A.patch(`api/b2/polls/${dp.id}`, { json: { closing_at: future() } })
    t.ok((opened.body as any).polls[0].opened_at, "PATCH closing_at on a draft opens it")
    t.equal((opened.body as any).polls[0].voters_count, 3)
    t.equal((await vote(dp.id, { a: 1 })).statusCode, 200)

    const errors: Array<[any, number, string]> = [
      [{ group_id: group.id, title: "x", poll_type: "referendum" }, 422, "poll_type"],
      [{ group_id: group.id, title: "x" }, 422, "poll_type"],
      [{ group_id: group.id, poll_type: "poll", options: ["a"] }, 422, "title"],
      [{ group_id: group.id, title: "x", poll_type: "proposal", options: ["agree", "maybe"] }, 422, "options"],
      [{ group_id: group.id, title: "x", poll_type: "meeting", options: ["2019-02-30"] }, 422, "options"],
      [{ group_id: group.id, title: "x", poll_type: "poll", options: ["a"], closing_at: "2001-01-01T00:00:00Z" }, 422, "closing_at"],
      [{ group_id: group.id, title: "x", poll_type: "poll", options: ["a"], closing_at: "tomorrow" }, 422, "closing_at"],
      [{ group_id: group.id, title: "x", poll_type: "poll", options: ["a"], hide_results: "sometimes" }, 422, "hide_results"],
      [{ group_id: group.id, title: "x", poll_type: "meeting", options: ["2019-01-01"], anonymous: true }, 422, "anonymous"],
      [{ title: "x", poll_type: "poll", options: ["a"] }, 422, "group_id"],
      [{ group_id: group.id, title: "x", poll_type: "poll", options: ["a"], colour: "red" }, 400, "colour"],
      [{ group_id: group.id, title: "x", poll_type: "poll", options: "a" }, 400, "options"]
    ]
    const before = (await s.sql("SELECT count(*) AS n FROM polls"))
    for (const [json, status, field] of errors) {
      const r = await create(json)
      t.equal(r.statusCode, status, JSON.stringify(json))
      t.match(JSON.stringify(r.body), field)
    }
    t.equal((await create({ group_id: group.id, title: "x", poll_type: "poll", options: ["a"] }, O)).statusCode, 403, "a non-member may not start a poll")
    t.equal((await create({ group_id: 99999, title: "x", poll_type: "poll", options: ["a"] })).statusCode, 404)
    t.same((await s.sql("SELECT count(*) AS n FROM polls")), before, "nothing written")
  })

  t.test("specified voters, recipients and notify_recipients", async (t) => {
    const guest = await seedUser(s.convene, { name: "Guest", email: "guest@example.org" })
    const quiet = await create({
      group_id: group.id, title: "Quiet", poll_type: "proposal", closing_at: future(), specified_voters_only: true,
      recipient_user_ids: [ann.user.id], recipient_emails: ["new@example.org"]
    })
    const q = (quiet.body as any).polls[0]
    t.equal(q.voters_count, 2, "only the invited hold ballots")
    t.equal((await s.sql("SELECT count(*) AS n FROM mail_outbox WHERE kind = 'poll_invitation'"))[0]!.n, 0, "notify_recipients false: nobody e-mailed")
    t.equal((await vote(q.id, { agree: 1 }, B)).statusCode, 403, "not a specified voter")
    t.equal((await vote(q.id, { agree: 1 }, N)).statusCode, 200)
    const loud = await create({
      group_id: group.id, title: "Loud", poll_type: "proposal", closing_at: future(), specified_voters_only: true,
      recipient_user_ids: [guest.user.id], recipient_message: "Please vote", notify_recipients: true
    })
    const l = (loud.body as any).polls[0]
    const mail = (await s.sql<any>("SELECT recipient_email, body FROM mail_outbox WHERE kind = 'poll_invitation'"))
    t.same(mail.map((m) => m.recipient_email), ["guest@example.org"])
    t.match(mail[0].body, /Please vote/)
    t.equal((await s.as(guest.apiKey).get(`api/b2/polls/${l.id}`)).statusCode, 200, "an invited guest sees the poll")
    t.equal((await vote(l.id, { block: 1 }, s.as(guest.apiKey))).statusCode, 200, "and votes")
  })

  t.test("hide_results and anonymous", async (t) => {
    const hidden = (await create({ group_id: group.id, title: "Secret ballot", poll_type: "poll", options: ["a", "b"], closing_at: future(), hide_results: "until_vote" })).body as any
    const h = hidden.polls[0]
    await vote(h.id, { a: 1 }, B, "my reason")
    const before = (await N.get(`api/b2/polls/${h.id}`)).body as any
    t.equal(before.polls[0].results, null, "no results before voting")
    t.notOk(before.poll_options[0].total_score !== undefined, "no option totals")
    t.same((before.stances ?? []).filter((x: any) => x.participant_id !== ann.user.id), [], "no other people's votes (only the reader's own ballot)")
    t.notMatch(JSON.stringify(before), /my reason/)
    await vote(h.id, { b: 1 }, N)
    const after = (await N.get(`api/b2/polls/${h.id}`)).body as any
    t.ok(after.polls[0].results, "results after voting")
    t.same(after.polls[0].results.find((r: any) => r.name === "a").voter_ids, [ben.user.id], "and who chose what")

    const closedOnly = (await create({ group_id: group.id, title: "Until closed", poll_type: "poll", options: ["a", "b"], closing_at: future(), hide_results: "until_closed" })).body as any
    const c = closedOnly.polls[0]
    await vote(c.id, { a: 1 }, N)
    t.equal(((await N.get(`api/b2/polls/${c.id}`)).body as any).polls[0].results, null, "hidden even after voting")
    await A.post(`api/b2/polls/${c.id}/close`)
    t.ok(((await N.get(`api/b2/polls/${c.id}`)).body as any).polls[0].results, "shown once closed")

    const anon = (await create({ group_id: group.id, title: "Anon", poll_type: "proposal", closing_at: future(), anonymous: true })).body as any
    const a = anon.polls[0]
    await vote(a.id, { agree: 1 }, N, "private thoughts")
    await vote(a.id, { disagree: 1 }, B)
    const seen = (await A.get(`api/b2/polls/${a.id}`)).body as any
    t.ok(seen.polls[0].results.every((r: any) => r.voter_ids.length === 0), "results name nobody")
    t.same((seen.stances ?? []).filter((x: any) => x.participant_id !== admin.user.id), [], "no one else's ballot")
    const own = (await N.get(`api/b2/polls/${a.id}`)).body as any
    t.same(own.stances.map((x: any) => x.participant_id), [ann.user.id], "only the reader's own ballot")
    const items = (await s.sql<any>("SELECT actor_id FROM topic_items WHERE itemable_type = 'Stance' AND itemable_id IN (SELECT id FROM stances WHERE poll_id = ?)", a.id))
    t.ok(items.length === 2 && items.every((i) => i.actor_id === null), "vote items name nobody")
    t.equal((await A.post(`api/b2/polls/${a.id}/close`)).statusCode, 200)
    t.equal((await A.post(`api/b2/polls/${a.id}/reopen`, { json: { closing_at: future() } })).statusCode, 422, "anonymous polls cannot be reopened")
  })

  t.test("options change: votes on removed options go, others stay", async (t) => {
    const p = ((await create({ group_id: group.id, title: "Colours", poll_type: "poll", options: ["red", "blue", "green"], closing_at: future(), maximum_stance_choices: 2 })).body as any).polls[0]
    await vote(p.id, { red: 1, blue: 1 }, N)
    await vote(p.id, { green: 1 }, B)
    const res = await A.patch(`api/b2/polls/${p.id}`, { json: { options: ["red", "green", "yellow"] } })
    t.equal(res.statusCode, 200)
    const r = (res.body as any).polls[0].results
    t.same(r.map((x: any) => [x.name, x.score]).sort(), [["green", 1], ["red", 1], ["yellow", 0]])
    t.equal((await N.patch(`api/b2/polls/${p.id}`, { json: { title: "Mine now" } })).statusCode, 403, "only poll admins edit")
    const typeChange = await A.patch(`api/b2/polls/${p.id}`, { json: { poll_type: "score" } })
    t.equal(typeChange.statusCode, 422, "type cannot change")
    matchExact(t, typeChange.body, { errors: { poll_type: [/changed/] } })
  })

  t.test("members who join an open poll get a ballot; members removed lose theirs", async (t) => {
    const p = ((await create({ group_id: group.id, title: "Join", poll_type: "proposal", closing_at: future() })).body as any).polls[0]
    t.equal(p.voters_count, 3)
    const sync = await A.post("api/b2/memberships", { json: { group_id: group.id, emails: [admin.user.email, ann.user.email, "late@example.org"], remove_absent: true } })
    t.same((sync.body as any).removed_emails, [ben.user.email])
    const after = ((await A.get(`api/b2/polls/${p.id}`)).body as any).polls[0]
    t.equal(after.voters_count, 3, "late joiner issued a ballot, Ben's revoked")
    t.equal((await vote(p.id, { agree: 1 }, B)).statusCode, 404, "Ben no longer sees the poll")
    t.same((await s.sql("SELECT u.email FROM stances s JOIN users u ON u.id = s.participant_id WHERE s.poll_id = ? AND s.revoked_at IS NOT NULL", p.id)),
      [{ email: ben.user.email }])
    await s.convene.members.add({ group, user: ben.user })
  })

  t.test("shuffle_options: each reader has an order of their own, the same on every request", async (t) => {
    const names = ["a", "b", "c", "d", "e", "f", "g", "h"]
    const p = ((await create({ group_id: group.id, title: "Shuffled", poll_type: "poll", options: names, closing_at: future(), shuffle_options: true })).body as any)
    const ids = (who: typeof A) => who.get(`api/b2/polls/${p.polls[0].id}`).then((r) => (r.body as any).polls[0].poll_option_ids as Array<number>)
    const [n1, n2, b1] = [await ids(N), await ids(N), await ids(B)]
    t.same(n1, n2, "stable for one reader")
    t.same([...n1].sort(), [...b1].sort(), "the same options")
    t.notSame(n1, b1, "another reader, another order")
    const plain = ((await create({ group_id: group.id, title: "Plain", poll_type: "poll", options: names, closing_at: future() })).body as any)
    t.same(plain.polls[0].poll_option_ids, plain.poll_options.map((o: any) => o.id), "unshuffled polls keep their order")
  })

  t.test("members_can_vote: off, only administrators and invited voters vote", async (t) => {
    const strict = (await s.convene.groups.create({ name: "Strict", owner: admin.user, settings: { members_can_vote: false } })).group
    await s.convene.members.add({ group: strict, user: ann.user })
    await s.convene.members.add({ group: strict, user: ben.user })
    const p = ((await create({ group_id: strict.id, title: "Strict vote", poll_type: "proposal", closing_at: future(), specified_voters_only: true, recipient_user_ids: [ben.user.id] })).body as any).polls[0]
    t.equal((await vote(p.id, { agree: 1 }, N)).statusCode, 403, "a plain member may not vote")
    t.equal((await vote(p.id, { agree: 1 }, B)).statusCode, 200, "an invited voter may")
    const q = ((await create({ group_id: strict.id, title: "Open to all", poll_type: "proposal", closing_at: future() })).body as any).polls[0]
    t.equal(q.voters_count, 1, "only the administrator is issued a ballot")
    t.equal((await vote(q.id, { agree: 1 }, N)).statusCode, 403, "members do not vote by membership")
    t.equal((await vote(q.id, { agree: 1 }, A)).statusCode, 200, "administrators do")
  })

  t.test("list, paging, delete", async (t) => {
    const list = (await N.get(`api/b2/polls?group_id=${group.id}&per=2`)).body as any
    t.equal(list.polls.length, 2)
    t.ok(list.meta.total >= 5)
    const all = (await N.get(`api/b2/polls?group_id=${group.id}&status=all&limit=200`)).body as any
    t.ok(all.meta.total > list.meta.total, "all includes closed polls and drafts")
    t.equal((await N.get(`api/b2/polls?group_id=${group.id}&status=open`)).statusCode, 400)
    t.equal((await N.get("api/b2/polls")).statusCode, 400)
    t.equal((await O.get(`api/b2/polls?group_id=${group.id}`)).statusCode, 403, "a hidden group's polls")
    const victim = all.polls[0]
    t.equal((await N.delete(`api/b2/polls/${victim.id}`)).statusCode, 403)
    const del = await A.delete(`api/b2/polls/${victim.id}`)
    t.equal(del.statusCode, 200)
    t.ok((del.body as any).polls[0].discarded_at)
    const gone = await vote(victim.id, {}, N)
    t.equal(gone.statusCode, 422)
    t.match((gone.body as any).errors.poll_id[0], /deleted/)
    t.notOk(((await N.get(`api/b2/polls?group_id=${group.id}&status=all&limit=200`)).body as any).polls.some((x: any) => x.id === victim.id))
    t.equal((await N.get(`api/b2/polls/${victim.id}`)).statusCode, 404)
  })
})
