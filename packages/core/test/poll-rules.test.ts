import fc from "fast-check"
import t from "tap"
import { type PollOption, type PollType, Rules, type Stance } from "@convene/core"

const opts = (...names: Array<string>): Array<PollOption> => names.map((name, i) => ({ id: i + 1, poll_id: 1, name, priority: i }))
const stance = (participant: number, choices: Record<number, number>, cast = true): Stance => ({
  id: participant, poll_id: 1, participant_id: participant, inviter_id: null, latest: true, cast_at: cast ? "x" : null,
  reason: null, reason_format: "md", revoked_at: null, delegated_by: null, created_at: "", updated_at: "", choices: new Map(Object.entries(choices).map(([k, v]) => [Number(k), v]))
})

t.test("option validation", async (t) => {
  const table: Array<[PollType, Array<string>, RegExp | null]> = [
    ["proposal", ["agree", "disagree", "abstain", "block"], null],
    ["proposal", ["agree", "maybe"], /proposal's options/],
    ["proposal", [], /at least 1/],
    ["poll", ["Red", "Blue"], null],
    ["poll", ["Red", "Red"], /unique/],
    ["poll", ["Red", " "], /blank/],
    ["ranked_choice", ["A"], /at least 2/],
    ["meeting", ["2019-03-01", "2019-03-02T10:00:00Z", "2019-03-02T10:00+02:00"], null],
    ["meeting", ["2019-02-30"], /ISO 8601/],
    ["meeting", ["next tuesday"], /ISO 8601/],
    ["meeting", ["2019-03-01T25:00:00Z"], /ISO 8601/],
    ["dot_vote", ["x"], null]
  ]
  for (const [type, names, err] of table) {
    const e = Rules.optionsErrors(type, names)
    if (err === null) t.equal(e, null, `${type} ${names}`)
    else t.match(e, err, `${type} ${names}`)
  }
  t.same(Rules.orderOptions("meeting", ["2019-03-02", "2019-03-01T09:00:00Z", "2019-03-01"]), ["2019-03-01", "2019-03-01T09:00:00Z", "2019-03-02"])
})

t.test("ballot validation per type", async (t) => {
  const five = opts("a", "b", "c", "d", "e")
  const table: Array<[PollType, Rules.ConfigInput, Array<PollOption>, Record<string, number>, RegExp | null]> = [
    ["proposal", {}, opts("agree", "disagree"), { agree: 1 }, null],
    ["proposal", {}, opts("agree", "disagree"), { agree: 1, disagree: 1 }, /exactly one/],
    ["proposal", {}, opts("agree", "disagree"), { agree: 2 }, /exactly one/],
    ["proposal", {}, opts("agree", "disagree"), { maybe: 1 }, /unknown option: maybe/],
    ["proposal", {}, opts("agree", "disagree"), {}, /exactly one/],
    ["count", {}, opts("accept", "decline"), { accept: 1 }, null],
    ["poll", {}, five, { a: 1 }, null],
    ["poll", {}, five, { a: 1, b: 1 }, /only one/],
    ["poll", { maximum_stance_choices: 3 }, five, { a: 1, b: 1, c: 1 }, null],
    ["poll", { maximum_stance_choices: 3 }, five, { a: 1, b: 1, c: 1, d: 1 }, /at most 3/],
    ["poll", { minimum_stance_choices: 2, maximum_stance_choices: 3 }, five, { a: 1 }, /at least 2/],
    ["poll", {}, five, { a: 1.5 }, /whole number/],
    ["poll", {}, five, { a: -1 }, /whole number/],
    ["score", {}, five, { a: 5, b: 0 }, null],
    ["score", {}, five, { a: 6 }, /0 to 5/],
    ["score", { min_score: 1, max_score: 10 }, five, { a: 10, b: 1 }, null],
    ["score", { min_score: 1, max_score: 10 }, five, { a: 0 }, /1 to 10/],
    ["ranked_choice", {}, opts("x", "y", "z"), { x: 3, y: 2, z: 1 }, null],
    ["ranked_choice", {}, opts("x", "y", "z"), { x: 3, y: 2 }, /rank all 3/],
    ["ranked_choice", {}, opts("x", "y", "z"), { x: 3, y: 3, z: 1 }, /each used once/],
    ["meeting", {}, opts("2019-01-01", "2019-01-02"), { "2019-01-01": 2, "2019-01-02": 1 }, null],
    ["meeting", {}, opts("2019-01-01", "2019-01-02"), { "2019-01-01": 2 }, /every proposed time/],
    ["meeting", {}, opts("2019-01-01"), { "2019-01-01": 3 }, /2 \(yes\)/],
    ["meeting", { can_respond_maybe: false }, opts("2019-01-01"), { "2019-01-01": 1 }, /2 \(yes\) or 0/],
    ["dot_vote", {}, five, { a: 5, b: 3 }, null],
    ["dot_vote", {}, five, { a: 5, b: 4 }, /at most 8 dots/],
    ["dot_vote", {}, five, { a: 0 }, /at least one dot/],
    ["dot_vote", { dots_per_person: 20 }, five, { a: 20 }, null]
  ]
  for (const [type, cfg, options, ballot, err] of table) {
    const e = Rules.ballotErrors(Rules.ballotConfig(type, cfg), options, ballot)
    if (err === null) t.equal(e, null, `${type} ${JSON.stringify(ballot)}`)
    else t.match(e, err, `${type} ${JSON.stringify(ballot)}`)
  }
})

t.test("results per type", async (t) => {
  const p = Rules.computeResults("proposal", opts("agree", "disagree", "abstain"), [
    stance(1, { 1: 1 }), stance(2, { 1: 1 }), stance(3, { 2: 1 }), stance(4, {}, false)
  ], false)
  t.match(p, { voters_count: 4, cast_count: 3, undecided_count: 1, total_score: 3 })
  t.same(p.options.map((o) => [o.name, o.score, o.votes_cast_percent, o.voter_percent]), [
    ["agree", 2, 66.67, 50], ["disagree", 1, 33.33, 25], ["abstain", 0, 0, 0]
  ])
  t.same(p.options[0]!.voter_ids, [1, 2])
  const anon = Rules.computeResults("proposal", opts("agree"), [stance(1, { 1: 1 })], true)
  t.same(anon.options[0]!.voter_ids, [], "anonymous: nobody named")

  const ranked = Rules.computeResults("ranked_choice", opts("x", "y", "z"), [stance(1, { 1: 3, 2: 2, 3: 1 }), stance(2, { 2: 3, 1: 2, 3: 1 }), stance(3, { 2: 3, 3: 2, 1: 1 })], false)
  t.same(ranked.options.map((o) => [o.name, o.score, o.rank]), [["y", 8, 1], ["x", 6, 2], ["z", 4, 3]], "Borda points, ordered by total")

  const score = Rules.computeResults("score", opts("a", "b"), [stance(1, { 1: 5, 2: 1 }), stance(2, { 1: 2, 2: 0 })], false)
  t.same(score.options.map((o) => [o.name, o.score, o.average]), [["a", 7, 3.5], ["b", 1, 1]])

  const meeting = Rules.computeResults("meeting", opts("2019-01-01", "2019-01-02"), [stance(1, { 1: 2, 2: 1 }), stance(2, { 1: 2, 2: 0 })], false)
  t.same(meeting.options.map((o) => [o.name, o.yes, o.maybe, o.no]), [["2019-01-01", 2, 0, 0], ["2019-01-02", 0, 1, 1]])

  const dots = Rules.computeResults("dot_vote", opts("a", "b"), [stance(1, { 1: 6, 2: 2 }), stance(2, { 2: 8 })], false)
  t.same(dots.options.map((o) => [o.name, o.score, o.score_percent]), [["b", 10, 62.5], ["a", 6, 37.5]])

  const revoked = Rules.computeResults("poll", opts("a"), [{ ...stance(1, { 1: 1 }), revoked_at: "x" }, { ...stance(2, { 1: 1 }), latest: false }], false)
  t.match(revoked, { voters_count: 0, cast_count: 0, total_score: 0 }, "only latest, un-revoked ballots count")
})

t.test("property: random valid ballots — totals equal the sum of scores, percentages add to 100", async (t) => {
  const types: Array<PollType> = ["poll", "score", "ranked_choice", "meeting", "dot_vote", "proposal"]
  fc.assert(fc.property(
    fc.constantFrom(...types),
    fc.integer({ min: 2, max: 6 }),
    fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 1, maxLength: 40 }),
    (type, n, seeds) => {
      const options = type === "meeting" ? opts(...Array.from({ length: n }, (_, i) => `2019-01-0${i + 1}`)) : opts(...Array.from({ length: n }, (_, i) => `o${i}`))
      const cfg = Rules.ballotConfig(type, type === "poll" ? { maximum_stance_choices: n } : {})
      const ballots = seeds.map((seed, voter) => {
        const pick = (k: number) => options[(seed >> k) % n]!
        let scores: Record<string, number>
        switch (type) {
          case "proposal": scores = { [pick(0).name]: 1 }; break
          case "poll": scores = Object.fromEntries(options.filter((_, i) => i === seed % n || (seed >> (i + 3)) % 2 === 1).map((o) => [o.name, 1])); break
          case "score": scores = Object.fromEntries(options.map((o, i) => [o.name, (seed >> i) % 6])); break
          case "ranked_choice": {
            const order = [...options].sort((a, b) => ((seed * (a.id + 7)) % 13) - ((seed * (b.id + 7)) % 13) || a.id - b.id)
            scores = Object.fromEntries(order.map((o, i) => [o.name, n - i]))
            break
          }
          case "meeting": scores = Object.fromEntries(options.map((o, i) => [o.name, (seed >> i) % 3])); break
          default: scores = { [pick(0).name]: 1 + (seed % 8) }
        }
        if (Rules.ballotErrors(cfg, options, scores) !== null) throw new Error(`generated an invalid ${type} ballot ${JSON.stringify(scores)}`)
        const byId = new Map(options.map((o) => [o.name, o.id]))
        return stance(voter + 1, Object.fromEntries(Object.entries(scores).map(([k, v]) => [byId.get(k)!, v])))
      })
      const r = Rules.computeResults(type, options, ballots, false)
      const sum = ballots.reduce((a, b) => a + [...b.choices.values()].reduce((x, y) => x + y, 0), 0)
      if (r.total_score !== sum) return false
      if (r.options.reduce((a, o) => a + o.score, 0) !== sum) return false
      const pctSum = r.options.reduce((a, o) => a + o.score_percent, 0)
      if (sum > 0 && Math.abs(pctSum - 100) > 0.01 * n) return false
      if (type === "proposal" && Math.abs(r.options.reduce((a, o) => a + o.votes_cast_percent, 0) - 100) > 0.01 * n) return false
      return r.cast_count === ballots.length
    }
  ), { numRuns: 300 })
  t.pass("300 random polls")
})

t.test("results visibility", async (t) => {
  t.same([
    Rules.resultsVisible("off", false, false),
    Rules.resultsVisible("until_vote", false, false),
    Rules.resultsVisible("until_vote", false, true),
    Rules.resultsVisible("until_closed", false, true),
    Rules.resultsVisible("until_closed", true, false)
  ], [true, false, true, false, true])
})
