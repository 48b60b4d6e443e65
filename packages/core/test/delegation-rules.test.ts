/**
 * Delegated voting's rule (rules/delegation.ts), table-driven: who counts for whom at this moment, what a member's
 * ballot must become, and who may name whom. The end-to-end table (test/delegation.test.ts) runs the same cases
 * through the server.
 */
import t from "tap"
import { type Poll, Rules } from "@convene/core"
import { aGroup } from "./fixtures.js"

const open: Poll = {
  id: 1, key: "p", topic_id: 1, group_id: 1, author_id: 1, title: "P", details: "", details_format: "md", closing_at: new Date(Date.now() + 86_400_000).toISOString(),
  opened_at: "2000-01-01T00:00:00.000Z", closed_at: null, discarded_at: null, discarded_by: null, specified_voters_only: false, hide_results: "off",
  shuffle_options: false, anonymous: false, notify_on_closing_soon: "nobody", allow_delegated_votes: true, poll_type: "proposal", min_score: null,
  max_score: null, minimum_stance_choices: null, maximum_stance_choices: null, dots_per_person: null, can_respond_maybe: null,
  closing_soon_sent_at: null, created_at: "", updated_at: ""
} as unknown as Poll
const group = aGroup(1, { members_can_delegate: true, delegation_limit: 2 })

const own = { cast_at: "t", revoked_at: null, delegated_by: null }
const issued = { cast_at: null, revoked_at: null, delegated_by: null }
const cast = (by: number) => ({ cast_at: "t", revoked_at: null, delegated_by: by })
const revoked = { cast_at: "t", revoked_at: "t", delegated_by: null }
const to = (delegate: number, rank = 0) => ({ delegate_id: delegate, rank })

type Facts = Parameters<typeof Rules.standingOf>[0]
const base: Facts = { group, poll: open, mine: issued, mayVote: true, delegation: to(7), delegates: own }

t.test("who counts for whom at this moment", async (t) => {
  const table: Array<[string, Partial<Facts>, ReturnType<typeof Rules.standingOf>]> = [
    ["granted; the delegate voted: their vote stands for the member", {}, { _tag: "Delegate", by: 7 }],
    ["the delegate has not voted yet: nobody's", { delegates: issued }, { _tag: "Nobody" }],
    ["the delegate has no ballot at all", { delegates: undefined }, { _tag: "Nobody" }],
    ["no delegation (never granted, or revoked)", { delegation: undefined }, { _tag: "Nobody" }],
    ["the member voted before the delegate: their own", { mine: own }, { _tag: "Own" }],
    ["the member votes after the delegate's vote was cast for them: their own wins", { mine: own, delegates: own }, { _tag: "Own" }],
    ["a ballot the delegate's vote cast stays the delegate's while it stands", { mine: cast(7) }, { _tag: "Delegate", by: 7 }],
    ["a changed delegate mid-poll: the new one's vote", { mine: cast(7), delegation: to(8) }, { _tag: "Delegate", by: 8 }],
    ["within the limit (2): the oldest two count", { delegation: to(7, 1) }, { _tag: "Delegate", by: 7 }],
    ["past the limit (a lowered one): nobody's", { delegation: to(7, 2) }, { _tag: "Nobody" }],
    ["not transitive: the delegate's ballot was itself cast for them", { delegates: cast(9) }, { _tag: "Nobody" }],
    ["the delegate's ballot revoked (they left)", { delegates: revoked }, { _tag: "Nobody" }],
    ["anonymous polls count delegated votes too (only who is hidden)", { poll: { ...open, anonymous: true } }, { _tag: "Delegate", by: 7 }],
    ["a poll that refuses delegated votes", { poll: { ...open, allow_delegated_votes: false } }, { _tag: "Nobody" }],
    ["a group that turned delegation off", { group: { ...group, members_can_delegate: false } }, { _tag: "Nobody" }],
    ["a closed poll", { poll: { ...open, closed_at: "t" } }, { _tag: "Nobody" }],
    ["a draft", { poll: { ...open, opened_at: null } }, { _tag: "Nobody" }],
    ["a member who left (may not vote)", { mayVote: false }, { _tag: "Nobody" }],
    ["a member who left keeps their own vote", { mayVote: false, mine: own }, { _tag: "Own" }]
  ]
  for (const [name, facts, want] of table) t.same(Rules.standingOf({ ...base, ...facts }), want, name)
})

t.test("what the member's ballot must become", async (t) => {
  const table: Array<[string, ReturnType<typeof Rules.standingOf>, Facts["mine"], boolean, Rules.BallotChange]> = [
    ["own vote: kept", { _tag: "Own" }, own, false, "keep"],
    ["an issued ballot, the delegate voted: cast", { _tag: "Delegate", by: 7 }, issued, false, "cast"],
    ["no ballot yet: cast", { _tag: "Delegate", by: 7 }, undefined, false, "cast"],
    ["already cast by this delegate with these choices: kept (never twice)", { _tag: "Delegate", by: 7 }, cast(7), true, "keep"],
    ["the delegate changed their vote: cast again", { _tag: "Delegate", by: 7 }, cast(7), false, "cast"],
    ["cast by the former delegate: cast by the new one", { _tag: "Delegate", by: 8 }, cast(7), true, "cast"],
    ["revoked delegation: the delegated ballot withdrawn (never left counting)", { _tag: "Nobody" }, cast(7), true, "withdraw"],
    ["nobody's, an issued ballot: kept", { _tag: "Nobody" }, issued, false, "keep"],
    ["nobody's, no ballot: kept", { _tag: "Nobody" }, undefined, false, "keep"],
    ["nobody's, a revoked ballot (the member left): kept", { _tag: "Nobody" }, { cast_at: "t", revoked_at: "t", delegated_by: 7 }, false, "keep"]
  ]
  for (const [name, standing, mine, same, want] of table) t.equal(Rules.ballotChange(standing, mine, same), want, name)
})

t.test("who may name whom", async (t) => {
  const table: Array<[string, Parameters<typeof Rules.delegationErrors>, RegExp | null]> = [
    ["another member under the limit", [group, 1, 2, true, 1], null],
    ["delegation off", [{ ...group, members_can_delegate: false }, 1, 2, true, 0], /does not let its members delegate/],
    ["oneself", [group, 1, 1, true, 0], /yourself/],
    ["not a member", [group, 1, 2, false, 0], /member of the group/],
    ["the delegate holds the limit already", [group, 1, 2, true, 2], /already holds 2 delegations/]
  ]
  for (const [name, args, want] of table) {
    const got = Rules.delegationErrors(...args)
    if (want === null) t.equal(got, null, name)
    else t.match(got, want, name)
  }
  t.equal(Rules.delegationLimitErrors(5), null)
  for (const bad of [0, -1, 101, 2.5]) t.match(Rules.delegationLimitErrors(bad), /whole number from 1 to 100/, String(bad))
})

t.test("a delegated ballot names its delegate, except in anonymous polls", async (t) => {
  const s = { delegated_by: 7 } as never
  t.equal(Rules.revealDelegatedBy(open, s), 7)
  t.equal(Rules.revealDelegatedBy({ ...open, anonymous: true }, s), null)
})
