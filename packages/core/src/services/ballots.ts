/**
 * Ballots issued to voters (Loomio `create_anyone_can_vote_stances`, `group_members_added/removed`):
 * an open poll that is not `specified_voters_only` issues an uncast ballot to every human member of its
 * group and every guest of its thread, including members who join while it is open; a member who leaves
 * loses their ballot. The reports count these as votes issued.
 */
import { Effect } from "effect"
import type { Poll } from "../domain/polls.js"
import type { Group, Id } from "../domain/records.js"
import { Store } from "../ports/store.js"
import { canVoteAsMember } from "../rules/polls.js"
import { nowIso } from "./common.js"

/** Issues one person a ballot in the poll (or restores a revoked one); a live ballot stays as it is. */
export const giveBallot = Effect.fnUntraced(function*(poll: Poll, userId: Id, inviterId: Id | null) {
  const store = yield* Store
  const now = yield* nowIso
  const held = yield* store.stances.latestFor(poll.id, userId)
  if (held === undefined) {
    yield* store.stances.insert({
      poll_id: poll.id, participant_id: userId, inviter_id: inviterId, cast_at: null, reason: null, reason_format: "md",
      created_at: now, choices: new Map()
    })
  } else if (held.revoked_at !== null) {
    yield* store.stances.unrevoke(held.id, now)
  }
})

const issueTo = Effect.fnUntraced(function*(poll: Poll, userIds: ReadonlyArray<Id>) {
  const store = yield* Store
  for (const user of yield* store.users.byIds(userIds)) {
    if (!user.bot && user.deactivated_at === null) yield* giveBallot(poll, user.id, null)
  }
})

/** Members who vote by membership: all of them, or only administrators when the group turned `members_can_vote` off. */
const votingMembers = (group: Group) =>
  Effect.flatMap(Store, (store) =>
    Effect.map(store.memberships.activeEmails(group.id), (ms) =>
      ms.filter((m) => canVoteAsMember(group, m.membership.admin)).map((m) => m.membership.user_id)))

/** When a poll opens. */
export const issueBallots = Effect.fnUntraced(function*(poll: Poll, group: Group | undefined) {
  if (poll.specified_voters_only) return
  const store = yield* Store
  const memberIds = group === undefined ? [] : yield* votingMembers(group)
  const guestIds = yield* store.readers.guestsOf(poll.topic_id)
  yield* issueTo(poll, [...new Set([...memberIds, ...guestIds])])
})

/** New members of a group get ballots in its open polls. Call inside the membership's transaction. */
export const ballotsForNewMembers = Effect.fnUntraced(function*(group: Group, userIds: ReadonlyArray<Id>) {
  const store = yield* Store
  const polls = (yield* store.polls.openInGroup(group.id)).filter((p) => !p.specified_voters_only)
  if (polls.length === 0) return
  // only the new members' own memberships are read: the cost does not grow with the group
  const entitled: Array<Id> = []
  for (const id of userIds) {
    const m = yield* store.memberships.activeFor(group.id, id)
    if (m !== undefined && canVoteAsMember(group, m.admin)) entitled.push(id)
  }
  for (const poll of polls) yield* issueTo(poll, entitled)
})

/**
 * A member who leaves loses their ballots in the group's open polls: all of them, or (leaving by themselves) those
 * they did not cast themselves (a ballot a delegate's vote cast for them goes).
 */
export const revokeBallots = Effect.fnUntraced(function*(groupId: Id, userId: Id, revokerId: Id | null, keepVotes = false) {
  const store = yield* Store
  const now = yield* nowIso
  for (const poll of yield* store.polls.openInGroup(groupId)) {
    const held = yield* store.stances.latestFor(poll.id, userId)
    if (held !== undefined && held.revoked_at === null && !(keepVotes && held.cast_at !== null && held.delegated_by === null)) yield* store.stances.revoke(held.id, now, revokerId)
  }
})
