import { Effect } from "effect"
import fc from "fast-check"
import t from "tap"
import { loadAccess, makeConvene, Memberships, Polls, type PollType, Rules, Stances, Store } from "@convene/core"

/** The store keeps results as trigger-maintained counters; they must equal the definition (rules/pollTypes.ts tallyBallots). */
t.test("SQL tallies equal the in-memory definition, for every type", async (t) => {
  const convene = makeConvene({ filename: ":memory:" })
  t.teardown(() => convene.close())
  const { user: owner } = await convene.users.create({ email: "owner@example.org" })
  const { group } = await convene.groups.create({ name: "G", owner })
  const voters = []
  for (let i = 0; i < 60; i++) {
    const { user } = await convene.users.create({ email: `v${i}@example.org`, name: `V${i}` })
    await convene.members.add({ group, user })
    voters.push(user)
  }
  const left = new Set<number>()
  const closing = new Date(Date.now() + 86_400_000).toISOString()
  const types: Array<[PollType, Array<string>, object]> = [
    ["proposal", ["agree", "abstain", "disagree", "block"], {}],
    ["poll", ["a", "b", "c", "d"], { maximum_stance_choices: 3 }],
    ["score", ["a", "b", "c"], {}],
    ["ranked_choice", ["a", "b", "c"], {}],
    ["meeting", ["2019-01-01", "2019-01-02", "2019-01-03"], {}],
    ["dot_vote", ["a", "b", "c", "d"], {}]
  ]
  for (const [type, options, extra] of types) {
    const view = await convene.run(Effect.flatMap(loadAccess(owner), (a) =>
      Polls.createPoll(a, { group_id: group.id, title: type, poll_type: type, options, closing_at: closing, ...extra })))
    const cfg = view.poll
    // a fixed seed (TALLY_SEED varies it by hand): a failure here can be run again
    const ballots = fc.sample(fc.integer({ min: 0, max: 1 << 20 }), { numRuns: 60, seed: Number(process.env.TALLY_SEED ?? 20261126) })
    let n = 0
    for (const [i, seed] of ballots.entries()) {
      if (seed % 5 === 0 || left.has(i)) continue // some never vote; those who left cannot
      const names = view.options.map((o) => o.name)
      const scores: Record<string, number> = {}
      if (type === "proposal") scores[names[seed % 4]!] = 1
      else if (type === "poll") names.filter((_, k) => k === seed % 4 || (seed >> (k + 2)) % 3 === 0).slice(0, 3).forEach((x) => (scores[x] = 1))
      else if (type === "score") names.forEach((x, k) => (scores[x] = (seed >> k) % 6))
      else if (type === "ranked_choice") [...names].sort((a, b) => ((seed * (a.charCodeAt(0) + 3)) % 7) - ((seed * (b.charCodeAt(0) + 3)) % 7) || a.localeCompare(b)).forEach((x, k) => (scores[x] = 3 - k))
      else if (type === "meeting") names.forEach((x, k) => (scores[x] = (seed >> k) % 3))
      else scores[names[seed % 4]!] = 1 + (seed % 8)
      if (Rules.ballotErrors(cfg, view.options, scores) !== null) continue
      await convene.run(Effect.flatMap(loadAccess(voters[i]!), (a) => Stances.castVote(a, { poll_id: view.poll.id, option_scores: scores })))
      if (seed % 7 === 0) {
        // a changed vote replaces the first
        await convene.run(Effect.flatMap(loadAccess(voters[i]!), (a) => Stances.castVote(a, { poll_id: view.poll.id, option_scores: scores })))
      }
      n++
    }
    const compare = async (what: string) => {
      const { sql, memory } = await convene.run(Effect.gen(function*() {
        const store = yield* Store
        const sql = (yield* store.stances.tallies([view.poll.id])).get(view.poll.id)!
        const options = yield* store.pollOptions.ofPolls([view.poll.id])
        const memory = Rules.tallyBallots(type, options, yield* store.stances.latestOf([view.poll.id]))
        return { sql, memory }
      }))
      const byId = (x: typeof sql) => ({ ...x, options: [...x.options].sort((a, b) => a.option_id - b.option_id) })
      t.same(byId(sql), byId(memory), `${type}: ${n} ballots, ${what}`)
    }
    t.ok(n >= 20, `${type}: the sample cast ${n} ballots (a comparison of empty tallies proves nothing)`)
    await compare("as cast")
    // a member leaves (their ballots are revoked), and an option is removed with its votes
    const leaver = 10 + left.size
    left.add(leaver)
    await convene.run(Memberships.removeMember(group, voters[leaver]!))
    if (type === "poll" || type === "dot_vote") {
      await convene.run(Effect.flatMap(loadAccess(owner), (a) => Polls.updatePoll(a, view.poll.key, { options: ["a", "b", "c"] })))
    }
    await compare("after a member left and an option went")
  }
})
