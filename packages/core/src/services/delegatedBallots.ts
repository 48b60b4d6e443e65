/**
 * Delegated ballots kept as the rule says (rules/delegation.ts `standingOf`): after anything that changes who counts
 * for whom — a delegate's vote, a grant or revoke, a member leaving, a group or poll setting — each member concerned
 * gets the ballot their standing calls for, in the same transaction as the change. A ballot cast for someone is
 * theirs (one latest ballot per person: every count reads it once), names the delegate (`delegated_by`), publishes
 * its vote event and tells the member by mail; one no vote stands behind any more becomes uncast again.
 */
import { Effect } from "effect"
import type { Delegation, Poll, PollOption, Stance } from "../domain/polls.js"
import type { Group, Id, Topic, User } from "../domain/records.js"
import { Store } from "../ports/store.js"
import { ballotChange, standingOf } from "../rules/delegation.js"
import { voteRefusal } from "../rules/polls.js"
import { loadAccess, nowIso } from "./common.js"
import { recordThreadMessage } from "./mail.js"
import { voteEvent } from "./voteEvents.js"

const sameChoices = (a: ReadonlyMap<Id, number>, b: ReadonlyMap<Id, number>) =>
  a.size === b.size && [...a].every(([option, score]) => b.get(option) === score)

/** These members' ballots in one poll of the group made what their standing is now. Call inside the writing transaction. */
export const settleDelegatedBallots = Effect.fnUntraced(function*(poll: Poll, topic: Topic, group: Group, memberIds: ReadonlyArray<Id>, options?: ReadonlyArray<PollOption>) {
  if (memberIds.length === 0) return
  const store = yield* Store
  const now = yield* nowIso
  let pollOptions = options
  // what a delegate's delegators share (a vote settles several of one delegate's): read once per delegate
  const ofDelegate = new Map<Id, { holders: ReadonlyArray<Delegation>; ballot: Stance | undefined; user: User | undefined }>()
  const delegateFacts = Effect.fnUntraced(function*(delegateId: Id) {
    let facts = ofDelegate.get(delegateId)
    if (facts === undefined) {
      facts = {
        holders: yield* store.delegations.toDelegate(group.id, delegateId),
        ballot: yield* store.stances.latestFor(poll.id, delegateId),
        user: yield* store.users.byId(delegateId)
      }
      ofDelegate.set(delegateId, facts)
    }
    return facts
  })
  // the members in one read, not one each
  const members = new Map((yield* store.users.byIds(memberIds)).map((u) => [u.id, u]))
  for (const memberId of memberIds) {
    const member = members.get(memberId)
    if (member === undefined) continue
    const mine = yield* store.stances.latestFor(poll.id, memberId)
    const delegation = yield* store.delegations.activeOf(group.id, memberId)
    const facts = delegation === undefined ? undefined : yield* delegateFacts(delegation.delegate_id)
    const holders = facts?.holders ?? []
    const delegates = facts?.ballot
    const access = yield* loadAccess(member)
    const reader = yield* store.readers.find(topic.id, memberId)
    const standing = standingOf({
      group, poll, mine,
      mayVote: voteRefusal(access, { topic, group, reader }, poll, mine) === null,
      delegation: delegation === undefined ? undefined : { delegate_id: delegation.delegate_id, rank: holders.findIndex((d) => d.id === delegation.id) },
      delegates
    })
    const change = ballotChange(standing, mine, mine !== undefined && delegates !== undefined && sameChoices(mine.choices, delegates.choices))
    if (change === "keep") continue
    if (change === "withdraw") {
      const uncast = yield* store.stances.insert({
        poll_id: poll.id, participant_id: memberId, inviter_id: mine?.inviter_id ?? null, cast_at: null, reason: null, reason_format: "md",
        created_at: now, choices: new Map()
      })
      // a webhook's recount hears the ballot go as it heard it come
      pollOptions ??= yield* store.pollOptions.ofPolls([poll.id])
      yield* voteEvent("stance_updated", poll, pollOptions, uncast, member)
      continue
    }
    const delegate = facts!.user!
    const stance = yield* store.stances.insert({
      poll_id: poll.id, participant_id: memberId, inviter_id: mine?.inviter_id ?? null, cast_at: now, reason: null, reason_format: "md",
      created_at: now, choices: delegates!.choices, delegated_by: delegate.id
    })
    pollOptions ??= yield* store.pollOptions.ofPolls([poll.id])
    const replaced = mine !== undefined && mine.cast_at !== null && mine.revoked_at === null
    yield* voteEvent(replaced ? "stance_updated" : "stance_created", poll, pollOptions, stance, member)
    // the member is told their delegate's vote now stands for them, whatever their volume (as an invitation is)
    yield* recordThreadMessage(member, { kind: "vote_delegated", group, topicId: topic.id, title: poll.title, actor: delegate, path: `/p/${poll.key}` })
  }
})

/** The group's open polls, each with its thread: where a change of delegation is settled. */
const openPollsOf = Effect.fnUntraced(function*(group: Group) {
  const store = yield* Store
  const out: Array<{ poll: Poll; topic: Topic }> = []
  for (const poll of yield* store.polls.openInGroup(group.id)) {
    const topic = yield* store.topics.byId(poll.topic_id)
    if (topic !== undefined) out.push({ poll, topic })
  }
  return out
})

/** These members' ballots settled in every open poll of the group (a grant, a revoke, a setting changed). */
export const settleInGroup = Effect.fnUntraced(function*(group: Group, memberIds: ReadonlyArray<Id>) {
  if (memberIds.length === 0) return
  for (const { poll, topic } of yield* openPollsOf(group)) yield* settleDelegatedBallots(poll, topic, group, memberIds)
})

/** Everyone who delegates in the group, settled in one poll (its delegation setting changed). */
export const settlePoll = Effect.fnUntraced(function*(poll: Poll, group: Group) {
  const store = yield* Store
  const topic = yield* store.topics.byId(poll.topic_id)
  if (topic === undefined) return
  yield* settleDelegatedBallots(poll, topic, group, (yield* store.delegations.activeIn(group.id)).map((d) => d.delegator_id))
})

/**
 * A membership ends: the person's delegation and those to them end too (kept, revoked), and the ballots their
 * delegators held through them are settled again.
 */
export const endDelegations = Effect.fnUntraced(function*(group: Group, userId: Id, revokerId: Id | null) {
  const store = yield* Store
  const now = yield* nowIso
  const own = yield* store.delegations.activeOf(group.id, userId)
  const toThem = yield* store.delegations.toDelegate(group.id, userId)
  for (const d of [...(own === undefined ? [] : [own]), ...toThem]) yield* store.delegations.revoke(d.id, now, revokerId)
  yield* settleInGroup(group, toThem.map((d) => d.delegator_id))
})
