/**
 * Votes (stances). One latest ballot per voter: the first vote casts the issued ballot (`stance_created`),
 * a changed vote replaces it with a new latest ballot (`stance_updated`). Anonymous polls never name the voter.
 */
import { Effect } from "effect"
import type { Poll, PollOption, Stance } from "../domain/polls.js"
import type { Id } from "../domain/records.js"
import { forbidden, type Forbidden, type Invalid, invalid, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { cleanBody } from "../rules/bodies.js"
import { ballotErrors } from "../rules/pollTypes.js"
import { notOpenToVotes, reasonErrors } from "../rules/polls.js"
import { type Permit, Vote } from "../policies.js"
import type { TopicContext } from "../rules/topics.js"
import { nowIso } from "./common.js"
import { voteEvent } from "./voteEvents.js"
import { settleDelegatedBallots } from "./delegatedBallots.js"
import { findPoll, pollItemParent, type PollView, viewPolls, visibleFoundPoll } from "./polls/index.js"
import { recordItem } from "./threads/kernel.js"
import * as Inputs from "../domain/inputs.js"
import { loudListeners, notifyLoud, notifyMentions } from "./notify.js"

/** A vote (declared once in domain/inputs.ts): option name → score, e.g. `{"agree": 1}`. */
export type VoteInput = typeof Inputs.StanceInput.Type

export interface VoteResult {
  readonly stance: Stance
  readonly view: PollView
}

/** The ballot cast (or changed), its thread item, event and notices, where Vote allowed it. */
const recordVote = Effect.fnUntraced(function*(
  access: Access,
  ctx: TopicContext,
  poll: Poll,
  ballot: Stance | undefined,
  input: VoteInput,
  now: string
): Effect.fn.Return<{ readonly poll: Poll; readonly stance: Stance; readonly options: ReadonlyArray<PollOption> }, Invalid, Store | Permit<"Vote">> {
  yield* Vote.needed
  const store = yield* Store
  const options = yield* store.pollOptions.ofPolls([poll.id])
  const problem = ballotErrors(poll, options, input.option_scores)
  if (problem !== null) return yield* invalid("option_scores", problem)
  const noReason = reasonErrors(poll, input.reason)
  if (noReason !== null) return yield* invalid("reason", noReason)
  const byName = new Map(options.map((o) => [o.name, o.id]))
  const choices = new Map(Object.entries(input.option_scores).map(([name, score]) => [byName.get(name)!, score]))
  const reasonFormat = input.reason_format ?? "md"
  const reason = input.reason == null || input.reason.trim() === "" ? null : cleanBody(input.reason, reasonFormat)
  // a ballot a delegate's vote cast for them: the person's own vote is still their first
  const first = ballot === undefined || ballot.cast_at === null || ballot.revoked_at !== null || ballot.delegated_by !== null
  let stance: Stance
  if (ballot !== undefined && ballot.cast_at === null && ballot.revoked_at === null) {
    yield* store.stances.update(ballot.id, { cast_at: now, reason, reason_format: reasonFormat, choices, updated_at: now })
    stance = (yield* store.stances.byId(ballot.id))!
  } else {
    stance = yield* store.stances.insert({
      poll_id: poll.id, participant_id: access.user.id, inviter_id: ballot?.inviter_id ?? null, cast_at: now, reason,
      reason_format: reasonFormat, created_at: now, choices
    })
  }
  const kind = first ? "stance_created" : "stance_updated"
  yield* recordItem({
    topic: ctx.topic, kind, itemable_type: "Stance", itemable_id: stance.id,
    // an anonymous vote's item names nobody
    actor: poll.anonymous ? null : access.user,
    parent: yield* pollItemParent(poll), bump: true
  })
  yield* voteEvent(kind, poll, options, stance, access.user)
  // the vote stands for those who delegated to the voter and have not voted (rules/delegation.ts)
  if (ctx.group !== undefined && ctx.group.members_can_delegate && poll.allow_delegated_votes) {
    const delegators = yield* store.delegations.toDelegate(ctx.group.id, access.user.id)
    yield* settleDelegatedBallots(poll, ctx.topic, ctx.group, delegators.map((d) => d.delegator_id), options)
  }
  // a first vote is news to those listening Loud; an anonymous one names nobody (it is told to nobody)
  if (!poll.anonymous) {
    const activity = { topic: ctx.topic, group: ctx.group, actor: access.user, title: poll.title, path: `/p/${poll.key}`, message: reason }
    const told = new Set<Id>()
    yield* notifyMentions(reason, activity, told)
    if (first) yield* notifyLoud("stance_created", activity, told, yield* loudListeners(ctx.topic, ctx.group))
  }
  return { poll, stance, options }
})

/** POST /stances: 422 for a ballot that breaks the poll type's rules or a poll not open; 403 for a non-voter. */
export const castVote = Effect.fnUntraced(function*(access: Access, input: VoteInput): Effect.fn.Return<VoteResult, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  const now = yield* nowIso
  const { options, poll, stance } = yield* store.transaction(Effect.gen(function*() {
    // a deleted poll is no longer visible, but a voter deserves to hear why their vote is not taken
    const found = yield* findPoll(input.poll_id)
    const deleted = found.discarded_at === null ? null : notOpenToVotes(found)
    if (deleted !== null) return yield* invalid("poll_id", deleted.message)
    const { ballot, ctx, poll } = yield* visibleFoundPoll(access, found, input.poll_id)
    return yield* Vote.check([access, ctx, poll, ballot], (refusal) => (refusal._tag === "NotOpen" ? invalid("poll_id", refusal.message) : forbidden(refusal.message)))(recordVote(access, ctx, poll, ballot, input, now))
  }))
  // the answer is read once the vote is committed, outside the write lock that other votes wait for; the
  // thread is read again (the vote moved its counters), the ballot is the one just cast, the options unchanged
  const [view] = yield* viewPolls(access, [poll], { mine: [stance], options })
  return { stance, view: view! }
})
