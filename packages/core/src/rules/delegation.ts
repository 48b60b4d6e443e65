/**
 * Delegated voting (decisions §15), decided here and nowhere else: who may name whom, and — the one rule voting,
 * results, reports, webhooks and exports all rest on — whose vote stands for a member in a poll at this moment.
 *
 * A delegate's vote is cast, as a ballot of the member's own (`delegated_by` the delegate), for each member who
 * delegated to them and has not voted: so every count reads ballots as it always has, one latest ballot per
 * person, and a delegated ballot is never counted twice nor missing. A member's own vote always wins, even after
 * the delegate's. Not transitive: only a delegate's own vote carries their delegators.
 */
import { DELEGATION_LIMIT_MAX, type Group, type Id } from "../domain/records.js"
import type { Poll, Stance } from "../domain/polls.js"
import { type Access, isActivePerson, isAdmin, isMember } from "./access.js"
import { isClosed, isDraft } from "./polls.js"

export { DELEGATION_LIMIT, DELEGATION_LIMIT_MAX } from "../domain/records.js"

export type DelegationGroup = Pick<Group, "members_can_delegate" | "delegation_limit">

/**
 * Why `delegatorId` may not name `delegateId` as their delegate in the group now, or null. `delegateIsMember`: an
 * accepted member; `delegateHolds`: the delegations the delegate holds already (this member's not among them).
 */
export const delegationErrors = (
  group: DelegationGroup,
  delegatorId: Id,
  delegateId: Id,
  delegateIsMember: boolean,
  delegateHolds: number
): string | null => {
  if (!group.members_can_delegate) return "this group does not let its members delegate their vote"
  if (delegateId === delegatorId) return "can't be yourself"
  if (!delegateIsMember) return "must be a member of the group"
  if (delegateHolds >= group.delegation_limit) return `already holds ${delegateHolds} delegations, the most this group allows`
  return null
}

/** One's own delegation, read or revoked: a member (revoking stays open after the group turns delegation off). */
export const canHoldDelegation = (access: Access, group: Pick<Group, "id">): boolean => isActivePerson(access) && isMember(access, group.id)

/** Naming a delegate: an accepted member of a group that lets its members delegate. */
export const canDelegate = (access: Access, group: Pick<Group, "id" | "members_can_delegate">): boolean =>
  group.members_can_delegate && canHoldDelegation(access, group) && access.memberships.get(group.id)!.accepted_at !== null

/** Every grant and revoke of the group: its administrators. */
export const canAuditDelegations = (access: Access, group: Pick<Group, "id">): boolean => isActivePerson(access) && isAdmin(access, group.id)

/** A group's delegation limit as an administrator sets it. */
export const delegationLimitErrors = (limit: number): string | null =>
  Number.isInteger(limit) && limit >= 1 && limit <= DELEGATION_LIMIT_MAX ? null : `must be a whole number from 1 to ${DELEGATION_LIMIT_MAX}`

/** Whose vote stands for a member in a poll: their own, their delegate's (`by`), or nobody's yet. */
export type Standing =
  | { readonly _tag: "Own" }
  | { readonly _tag: "Delegate"; readonly by: Id }
  | { readonly _tag: "Nobody" }

type Ballot = Pick<Stance, "cast_at" | "revoked_at" | "delegated_by">

/** A ballot the person cast themselves, counted. */
export const isOwnVote = (b: Ballot | undefined): boolean => b !== undefined && b.cast_at !== null && b.revoked_at === null && b.delegated_by === null

/** A poll a delegate's vote may be cast in: open, and not refusing delegated votes. */
export const takesDelegatedVotes = (group: DelegationGroup, poll: Poll): boolean =>
  group.members_can_delegate && poll.allow_delegated_votes && poll.discarded_at === null && !isDraft(poll) && !isClosed(poll)

export interface StandingFacts {
  readonly group: DelegationGroup
  readonly poll: Poll
  /** the member's latest ballot in the poll */
  readonly mine: Ballot | undefined
  /** whether the member may vote in the poll (rules/polls.ts voteRefusal, for them) */
  readonly mayVote: boolean
  /** the member's delegate now, and the place of this delegation among the delegate's (0: the oldest) */
  readonly delegation: { readonly delegate_id: Id; readonly rank: number } | undefined
  /** the delegate's latest ballot in the poll */
  readonly delegates: Ballot | undefined
}

/**
 * Who counts for whom at this moment (decisions §15): the member's own vote always; else their delegate's own vote,
 * where the group lets members delegate, the poll is open and takes delegated votes, the member may vote, and the
 * delegation is within the group's limit (the oldest ones, should the limit have been lowered); else nobody's.
 * A delegate's ballot that was itself cast for them carries nobody (not transitive).
 */
export const standingOf = (f: StandingFacts): Standing => {
  if (isOwnVote(f.mine)) return { _tag: "Own" }
  if (!takesDelegatedVotes(f.group, f.poll) || !f.mayVote || f.delegation === undefined) return { _tag: "Nobody" }
  if (f.delegation.rank >= f.group.delegation_limit) return { _tag: "Nobody" }
  return isOwnVote(f.delegates) ? { _tag: "Delegate", by: f.delegation.delegate_id } : { _tag: "Nobody" }
}

/**
 * What the member's ballot must become for their standing: nothing; a ballot cast with the delegate's choices (new,
 * or again because the delegate changed their vote); or, for a delegated ballot no vote stands behind any more, an
 * uncast one again. `sameChoices`: whether the member's delegated ballot already holds the delegate's choices.
 */
export type BallotChange = "keep" | "cast" | "withdraw"

export const ballotChange = (standing: Standing, mine: Ballot | undefined, sameChoices: boolean): BallotChange => {
  const delegated = mine !== undefined && mine.cast_at !== null && mine.revoked_at === null && mine.delegated_by !== null
  switch (standing._tag) {
    case "Own":
      return "keep"
    case "Delegate":
      return delegated && mine.delegated_by === standing.by && sameChoices ? "keep" : "cast"
    case "Nobody":
      return delegated ? "withdraw" : "keep"
  }
}
