/** Reactions (extension): a participant's emoji or shortcode on a discussion, comment, poll, vote or outcome. */
import { Effect } from "effect"
import type { Id, ItemableType, Reaction, Topic, User } from "../domain/records.js"
import type { Poll, Stance } from "../domain/polls.js"
import { canSeeBallot, canSeeResults } from "../rules/polls.js"
import { revealVoter } from "../rules/reveal.js"
import { canReact } from "../rules/comments.js"
import { forbidden, type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { React, RemoveReaction, SeeBallot, ShowTopic } from "../policies.js"
import { nowIso } from "./common.js"
import { tellLive } from "./events.js"
import { topicContext } from "./threads/kernel.js"
import * as Inputs from "../domain/inputs.js"

export type ReactionInput = typeof Inputs.ReactionInput.Type

/**
 * The thread of a kept reactable, or not found. A vote is a reactable only once cast, and only for
 * readers who may see it now (their own, or others' once results are visible).
 */
const threadOf = Effect.fnUntraced(function*(access: Access, type: ItemableType, id: Id): Effect.fn.Return<Topic, NotFound, Store> {
  const store = yield* Store
  const missing = notFound(`${type} ${id} not found`)
  const topicOf = (topicId: Id) => Effect.map(store.topics.byId(topicId), (t) => t!)
  const keptPoll = (pollId: Id) =>
    Effect.flatMap(store.polls.byId(pollId), (p) => (p === undefined || p.discarded_at !== null ? missing : Effect.succeed(p)))
  switch (type) {
    case "Discussion":
    case "Comment": {
      let discussionId = id
      if (type === "Comment") {
        const comment = yield* store.comments.byId(id)
        if (comment === undefined || comment.discarded_at !== null) return yield* missing
        discussionId = comment.discussion_id
      }
      const discussion = yield* store.discussions.byId(discussionId)
      if (discussion === undefined || discussion.discarded_at !== null) return yield* missing
      return yield* topicOf(discussion.topic_id)
    }
    case "Poll":
      return yield* topicOf((yield* keptPoll(id)).topic_id)
    case "Outcome": {
      const outcome = yield* store.outcomes.byId(id)
      if (outcome === undefined) return yield* missing
      return yield* topicOf((yield* keptPoll(outcome.poll_id)).topic_id)
    }
    case "Stance": {
      const stance = yield* store.stances.byId(id)
      if (stance === undefined || stance.cast_at === null || stance.revoked_at !== null) return yield* missing
      const poll = yield* keptPoll(stance.poll_id)
      const own = stance.participant_id === access.user.id
      const mine = own ? undefined : yield* store.stances.latestFor(poll.id, access.user.id)
      return yield* SeeBallot.check([poll, mine, own], () => missing)(Effect.zipRight(SeeBallot.needed, topicOf(poll.topic_id)))
    }
  }
})

/** POST /reactions: adding the same reaction twice returns the first. An unreadable record is not found. */
export const addReaction = Effect.fnUntraced(function*(
  access: Access,
  input: ReactionInput
): Effect.fn.Return<Reaction, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  const reaction = input.reaction.trim()
  if (reaction === "") return yield* invalid("reaction", "can't be blank")
  if (reaction.length > 64) return yield* invalid("reaction", "is too long (maximum is 64 characters)")
  return yield* store.transaction(Effect.gen(function*() {
    const ctx = yield* topicContext(access, yield* threadOf(access, input.reactable_type, input.reactable_id))
    const react = Effect.gen(function*() {
      yield* React.needed
      const key = { reactable_type: input.reactable_type, reactable_id: input.reactable_id, user_id: access.user.id, reaction }
      const existing = yield* store.reactions.find(key)
      if (existing !== undefined) return existing
      yield* tellLive("reaction", { group_id: ctx.topic.group_id, topic_id: ctx.topic.id })
      return yield* store.reactions.insert({ ...key, topic_id: ctx.topic.id, created_at: yield* nowIso })
    })
    return yield* ShowTopic.check([access, ctx], () => notFound(`${input.reactable_type} ${input.reactable_id} not found`))(
      React.check([access, ctx], () => forbidden("Not authorized to react."))(react))
  }))
})

/** DELETE /reactions/{id}: only one's own reaction. */
export const removeReaction = Effect.fnUntraced(function*(access: Access, id: Id): Effect.fn.Return<Reaction, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const reaction = yield* store.reactions.byId(id)
    if (reaction === undefined) return yield* notFound(`Reaction ${id} not found`)
    const topic = yield* store.topics.byId(reaction.topic_id)
    return yield* RemoveReaction.check([access, reaction], () => forbidden("You can only remove your own reaction."))(
      Effect.as(Effect.zipRight(RemoveReaction.needed, Effect.zipRight(store.reactions.delete(id), tellLive("reaction", { group_id: topic?.group_id, topic_id: reaction.topic_id }))), reaction))
  }))
})

/**
 * The reactions under a poll, its outcome and its newest `votesShown` votes, with who made them, and whether the reader
 * may react: its page's. The votes are those the reader may see (rules/polls.ts canSeeBallot: theirs, and the others'
 * once the results are visible), newest first; in an anonymous poll nobody is named (rules/reveal.ts).
 */
export interface PollReactions {
  readonly poll: ReadonlyArray<Reaction>
  readonly outcome: ReadonlyArray<Reaction>
  readonly votes: ReadonlyArray<{ readonly stance: Stance; readonly voter: Id | null; readonly reactions: ReadonlyArray<Reaction> }>
  readonly users: ReadonlyArray<User>
  readonly mayReact: boolean
}

export const pollReactions = Effect.fnUntraced(function*(access: Access, poll: Poll, outcomeId: Id | undefined, votesShown: number): Effect.fn.Return<PollReactions, NotFound, Store> {
  const store = yield* Store
  const ctx = yield* topicContext(access, (yield* store.topics.byId(poll.topic_id))!)
  return yield* ShowTopic.checkOr([access, ctx], (): PollReactions => ({ poll: [], outcome: [], votes: [], users: [], mayReact: false }))(Effect.gen(function*() {
    yield* ShowTopic.needed
    const onPoll = yield* store.reactions.ofReactables("Poll", [poll.id])
    const onOutcome = outcomeId === undefined ? [] : yield* store.reactions.ofReactables("Outcome", [outcomeId])
    const mine = yield* store.stances.latestFor(poll.id, access.user.id)
    // everyone's where the results show, else the reader's own (canSeeBallot)
    const cast = canSeeResults(poll, mine)
      ? yield* store.stances.newestCast(poll.id, votesShown)
      : mine !== undefined && mine.cast_at !== null && mine.revoked_at === null && canSeeBallot(poll, mine, true) ? [mine] : []
    const onVotes = yield* store.reactions.ofReactables("Stance", cast.map((st) => st.id))
    const votes = cast.map((stance) => ({ stance, voter: revealVoter(access.user.id, poll, stance), reactions: onVotes.filter((r) => r.reactable_id === stance.id) }))
    const people = [...onPoll, ...onOutcome, ...onVotes].map((r) => r.user_id).concat(votes.flatMap((v) => (v.voter === null ? [] : [v.voter])))
    const users = yield* store.users.byIds([...new Set(people)])
    return { poll: onPoll, outcome: onOutcome, votes, users, mayReact: canReact(access, ctx) }
  }))
})

/** Whether the reader may react to this record: the page offering the emoji asks before it shows them. */
export const reactionTarget = Effect.fnUntraced(function*(access: Access, type: ItemableType, id: Id): Effect.fn.Return<void, NotFound | Forbidden, Store> {
  const ctx = yield* topicContext(access, yield* threadOf(access, type, id))
  return yield* ShowTopic.check([access, ctx], () => notFound(`${type} ${id} not found`))(
    React.check([access, ctx], () => forbidden("Not authorized to react."))(Effect.zipRight(ShowTopic.needed, React.needed)))
})
