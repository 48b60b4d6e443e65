/**
 * Policies in the types (architecture.md, "Policies in the types"): each permission rule of rules/ bound to a
 * name. A step a use case protects declares `Permit<Name>` among the requirements of its Effect type, and the
 * one thing that provides it is `check`, which asks that rule first: a use case that forgets its check does not
 * compile (test/policies.test.ts compiles a fixture that tries). A refused check runs nothing and fails with the
 * refusal the use case names (403, or 404 where a refusal must not tell that the record exists).
 */
import { Effect } from "effect"
import { canCreateComment, canDeleteComment, canEditComment, canReact, canRemoveReaction } from "./rules/comments.js"
import { canDeleteDiscussion, canEditDiscussion, canStartDiscussion } from "./rules/discussions.js"
import {
  canAskToJoin,
  canDeleteGroup,
  canInvite,
  canJoinByLink,
  canJoinGroup,
  canLeaveGroup,
  canManageJoining,
  canListMembers,
  canManageGroup,
  canManageMembers,
  canManageWebhooks,
  canShowGroup,
  canStartGroup,
  canStartSubgroup
} from "./rules/groups.js"
import {
  canClosePoll,
  canDeletePoll,
  canEditPoll,
  canRemindVoters,
  canReopenPoll,
  canSeeBallot,
  canSeeResults,
  canShowPoll,
  canStartPoll,
  canStateOutcome,
  voteRefusal
} from "./rules/polls.js"
import { canListGroupPolls, canShowTopic } from "./rules/topics.js"
import { canSetGroupVolume } from "./rules/volume.js"
import { canAuditDelegations, canDelegate, canHoldDelegation } from "./rules/delegation.js"
import { canManageOwnAccount } from "./rules/users.js"

declare const PermitTypeId: unique symbol

/** What a protected step needs: made only by a policy's `check`, when its rule allowed. */
export interface Permit<Name extends string> {
  readonly [PermitTypeId]: Name
}

export interface Policy<Name extends string, Args extends ReadonlyArray<unknown>, Reason> {
  /** The head of a protected step: its Effect type then requires the permit. */
  readonly needed: Effect.Effect<void, never, Permit<Name>>
  /**
   * Runs `step` with the permit when the rule allows `args`; otherwise fails with `refuse(reason)` (a boolean
   * rule's reason is `false`) and `step` does not run.
   */
  readonly check: <E2>(args: Args, refuse: (reason: Reason) => E2) => <A, E, R>(step: Effect.Effect<A, E, R>) => Effect.Effect<A, E | E2, Exclude<R, Permit<Name>>>
  /** The same, where a refusal is not an error but another answer (an empty list). */
  readonly checkOr: <B>(args: Args, otherwise: (reason: Reason) => B) => <A, E, R>(step: Effect.Effect<A, E, R>) => Effect.Effect<A | B, E, Exclude<R, Permit<Name>>>
}

/**
 * A policy over a rule that answers why not (`Reason`), or null when it allows. A permit exists in the types
 * only: at run time the check is the rule's answer and nothing more (a context to provide on every read cost the
 * light read a sixth of its speed).
 */
const policyWithReason = <const Name extends string, Args extends ReadonlyArray<any>, Reason>(
  _name: Name,
  rule: (...args: Args) => Reason | null
): Policy<Name, Args, Reason> => {
  const grant = <A, E, R>(step: Effect.Effect<A, E, R>) => step as Effect.Effect<A, E, Exclude<R, Permit<Name>>>
  return {
    needed: Effect.void as Effect.Effect<void, never, Permit<Name>>,
    check: (args, refuse) => (step) => {
      const reason = rule(...args)
      return reason === null ? grant(step) : Effect.fail(refuse(reason))
    },
    checkOr: (args, otherwise) => (step) => {
      const reason = rule(...args)
      return reason === null ? grant(step) : Effect.succeed(otherwise(reason))
    }
  }
}

/** A policy over a `can*` rule. */
const policy = <const Name extends string, Args extends ReadonlyArray<any>>(name: Name, rule: (...args: Args) => boolean): Policy<Name, Args, false> =>
  policyWithReason(name, (...args: Args) => (rule(...args) ? null : false as const))

// reading
export const ShowGroup = policy("ShowGroup", canShowGroup)
export const ShowTopic = policy("ShowTopic", canShowTopic)
export const ShowPoll = policy("ShowPoll", canShowPoll)
export const ListMembers = policy("ListMembers", canListMembers)
export const ListGroupPolls = policy("ListGroupPolls", canListGroupPolls)
/** A poll's results taken away (CSV, print): while the reader may see them (decisions §15). */
export const ExportResults = policy("ExportResults", canSeeResults)
/** Reacting to a ballot of a poll whose results the caller may not see yet would tell them the ballot exists. */
export const SeeBallot = policy("SeeBallot", canSeeBallot)

// threads
export const StartDiscussion = policy("StartDiscussion", canStartDiscussion)
export const EditDiscussion = policy("EditDiscussion", canEditDiscussion)
export const DeleteDiscussion = policy("DeleteDiscussion", canDeleteDiscussion)
export const CreateComment = policy("CreateComment", canCreateComment)
export const EditComment = policy("EditComment", canEditComment)
export const DeleteComment = policy("DeleteComment", canDeleteComment)
export const React = policy("React", canReact)
export const RemoveReaction = policy("RemoveReaction", canRemoveReaction)

// polls
export const StartPoll = policy("StartPoll", canStartPoll)
export const EditPoll = policy("EditPoll", canEditPoll)
export const DeletePoll = policy("DeletePoll", canDeletePoll)
export const ClosePoll = policy("ClosePoll", canClosePoll)
export const ReopenPoll = policy("ReopenPoll", canReopenPoll)
export const StateOutcome = policy("StateOutcome", canStateOutcome)
export const RemindVoters = policy("RemindVoters", canRemindVoters)
/** Who may vote: the rule says why not (not open, or not a voter). */
export const Vote = policyWithReason("Vote", voteRefusal)

// groups
export const ManageMembers = policy("ManageMembers", canManageMembers)
export const Invite = policy("Invite", canInvite)
export const StartGroup = policy("StartGroup", canStartGroup)
export const StartSubgroup = policy("StartSubgroup", canStartSubgroup)
export const ManageGroup = policy("ManageGroup", canManageGroup)
export const LeaveGroup = policy("LeaveGroup", canLeaveGroup)
export const JoinGroup = policy("JoinGroup", canJoinGroup)
export const AskToJoin = policy("AskToJoin", canAskToJoin)
/** Answering requests to join, and the shareable link: whoever may invite. */
export const ManageJoining = policy("ManageJoining", canManageJoining)
export const JoinByLink = policy("JoinByLink", canJoinByLink)
export const DeleteGroup = policy("DeleteGroup", canDeleteGroup)

// people
export const OwnAccount = policy("OwnAccount", canManageOwnAccount)
export const ManageWebhooks = policy("ManageWebhooks", canManageWebhooks)
export const SetGroupVolume = policy("SetGroupVolume", canSetGroupVolume)

// delegated voting
export const HoldDelegation = policy("HoldDelegation", canHoldDelegation)
export const Delegate = policy("Delegate", canDelegate)
export const AuditDelegations = policy("AuditDelegations", canAuditDelegations)
