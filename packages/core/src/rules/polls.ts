/** Loomio `ability/poll.rb`, `ability/stance.rb`, `ability/outcome.rb`, pure. A poll is as visible as its thread. */
import { HIDE_RESULTS, NOTIFY_ON_CLOSING_SOON, type Poll, STANCE_REASON_REQUIRED, POLL_TYPE_FACTS, POLL_TYPES, type PollType, type Stance } from "../domain/polls.js"
import type { Group } from "../domain/records.js"
import { type Access, isAdmin, isMember } from "./access.js"
import { isDiscussionMember } from "./discussions.js"
import { resultsVisible } from "./pollTypes.js"
import { canShowTopic, isGuest, type TopicContext } from "./topics.js"
import { isOneOf } from "./values.js"

export const isDraft = (p: Poll) => p.opened_at === null && p.closed_at === null
export const isClosed = (p: Poll) => p.closed_at !== null
/** Open for voting: opened, not closed, not deleted. */
export const isActive = (p: Poll) => p.opened_at !== null && p.closed_at === null && p.discarded_at === null

/** create: group admin, or (members_can_raise_motions and a member or guest of the thread); never in a closed thread. */
export const canStartPoll = (access: Access, group: Group | undefined, ctx: TopicContext | undefined): boolean => {
  if (ctx !== undefined && (ctx.topic.closed_at !== null || !canShowTopic(access, ctx))) return false
  if (group === undefined) return ctx !== undefined && isDiscussionMember(access, ctx)
  return isAdmin(access, group.id) ||
    (group.members_can_raise_motions && (isMember(access, group.id) || (ctx !== undefined && isGuest(ctx.reader))))
}

/** Poll admins: the author (while a member of the poll's group, or when it has none) and group admins. */
export const isPollAdmin = (access: Access, ctx: TopicContext, p: Poll): boolean =>
  (p.author_id === access.user.id && (ctx.group === undefined || isMember(access, ctx.group.id))) ||
  (ctx.group !== undefined && isAdmin(access, ctx.group.id))

/** Poll members: members of its group and guests of its thread. */
export const isPollMember = (access: Access, ctx: TopicContext): boolean => isDiscussionMember(access, ctx)

export const canShowPoll = (access: Access, ctx: TopicContext, p: Poll, ballot: Stance | undefined): boolean =>
  p.discarded_at === null && (canShowTopic(access, ctx) || (ballot !== undefined && ballot.revoked_at === null))

/** update: poll admin, poll not closed, thread not closed. */
export const canEditPoll = (access: Access, ctx: TopicContext, p: Poll): boolean =>
  p.discarded_at === null && !isClosed(p) && ctx.topic.closed_at === null && isPollAdmin(access, ctx, p)

export const canDeletePoll = (access: Access, ctx: TopicContext, p: Poll): boolean =>
  p.discarded_at === null && isPollAdmin(access, ctx, p)

export const canClosePoll = (access: Access, ctx: TopicContext, p: Poll): boolean => isActive(p) && isPollAdmin(access, ctx, p)

/** reopen: closed, not anonymous (Loomio), thread open, poll admin. */
export const canReopenPoll = (access: Access, ctx: TopicContext, p: Poll): boolean =>
  isClosed(p) && p.discarded_at === null && !p.anonymous && ctx.topic.closed_at === null && isPollAdmin(access, ctx, p)

/** Why a vote is refused: the poll is not open to votes (422, naming poll_id) or the caller may not vote (403). */
export type VoteRefusal =
  | { readonly _tag: "NotOpen"; readonly message: string }
  | { readonly _tag: "NotVoter"; readonly message: string }

/** A poll takes votes only while open: not deleted, not a draft, not closed. */
export const notOpenToVotes = (p: Poll): VoteRefusal | null => {
  if (p.discarded_at !== null) return { _tag: "NotOpen", message: "the poll has been deleted" }
  if (isDraft(p)) return { _tag: "NotOpen", message: "the poll is a draft: voting has not opened" }
  if (isClosed(p)) return { _tag: "NotOpen", message: "the poll is closed" }
  return null
}

/**
 * vote (Loomio vote_in), the whole rule: the poll must be open (not deleted, not a draft, not closed); the
 * caller needs a live issued ballot, or (not specified_voters_only and a poll member: group members only
 * when `members_can_vote` unless they administer the group). Null when the vote may be cast.
 */
export const voteRefusal = (access: Access, ctx: TopicContext, p: Poll, ballot: Stance | undefined): VoteRefusal | null => {
  const closed = notOpenToVotes(p)
  if (closed !== null) return closed
  const notVoter = { _tag: "NotVoter", message: "You may not vote in this poll" } as const
  if (access.user.deactivated_at !== null) return notVoter
  if (ballot !== undefined && ballot.revoked_at === null) return null
  if (p.specified_voters_only) return notVoter
  if (isGuest(ctx.reader)) return null
  if (ctx.group === undefined || !isMember(access, ctx.group.id)) return notVoter
  return canVoteAsMember(ctx.group, isAdmin(access, ctx.group.id)) ? null : notVoter
}

/** A member votes by membership when the group lets members vote (`members_can_vote`), or when they administer it. */
export const canVoteAsMember = (group: Pick<Group, "members_can_vote">, admin: boolean): boolean => group.members_can_vote || admin

export const mayVote = (access: Access, ctx: TopicContext, p: Poll, ballot: Stance | undefined): boolean =>
  voteRefusal(access, ctx, p, ballot) === null

/** **Remind** those who have not voted: the poll's administrators, while it is open (decisions §15). */
export const canRemindVoters = (access: Access, ctx: TopicContext, p: Poll): boolean => isActive(p) && isPollAdmin(access, ctx, p)

/** Reminders come at most once a day: how long until the next may be sent (0: now). */
export const REMIND_EVERY_MS = 24 * 3600_000
export const msUntilReminder = (p: Pick<Poll, "reminded_at">, nowMs: number): number =>
  p.reminded_at === null ? 0 : Math.max(0, Date.parse(p.reminded_at) + REMIND_EVERY_MS - nowMs)

/** What is wrong with a vote's reason for the poll's "Reason" setting (Loomio's stance_reason_required), or null. */
export const reasonErrors = (p: Pick<Poll, "stance_reason_required">, reason: string | null | undefined): string | null => {
  const given = reason != null && reason.trim() !== ""
  if (p.stance_reason_required === "required" && !given) return "can't be blank: this poll asks for a reason with each vote"
  if (p.stance_reason_required === "disabled" && given) return "is not taken: this poll takes votes without reasons"
  return null
}

/** Results and other people's votes, for this viewer now (hide_results). */
export const canSeeResults = (p: Poll, ballot: Stance | undefined): boolean =>
  resultsVisible(p.hide_results, isClosed(p), ballot !== undefined && ballot.cast_at !== null)

/** A ballot, for this viewer: their own always; another's where the results show (a reaction to it says it exists). */
export const canSeeBallot = (p: Poll, myBallot: Stance | undefined, ownBallot: boolean): boolean => ownBallot || canSeeResults(p, myBallot)

/** Outcomes: on a closed poll, by a poll admin or (members_can_edit_discussions and a poll member). */
export const canStateOutcome = (access: Access, ctx: TopicContext, p: Poll): boolean =>
  isClosed(p) && p.discarded_at === null &&
  (isPollAdmin(access, ctx, p) || (ctx.group !== undefined && ctx.group.members_can_edit_discussions && isPollMember(access, ctx)))

/** The settings a client may send when creating or updating a poll (words as sent, checked here). */
export interface PollSettingsInput {
  readonly poll_type?: string | undefined
  readonly hide_results?: string | undefined
  readonly notify_on_closing_soon?: string | undefined
  readonly stance_reason_required?: string | undefined
  readonly anonymous?: boolean | undefined
}


/**
 * What is wrong with a poll's settings, as [field, message], or null. On update (`current` given) the type
 * cannot change, results cannot be revealed early (an open poll's `until_closed` stays, as Loomio's
 * cannot_reveal_results_early), and a poll is never de-anonymised.
 */
export const pollSettingsErrors = (input: PollSettingsInput, current?: Poll): [string, string] | null => {
  if (current === undefined && (input.poll_type === undefined || input.poll_type.trim() === "")) return ["poll_type", "can't be blank"]
  if (input.poll_type !== undefined && !isOneOf(POLL_TYPES, input.poll_type)) return ["poll_type", `must be one of ${POLL_TYPES.join(", ")}`]
  if (current !== undefined && input.poll_type !== undefined && input.poll_type !== current.poll_type) return ["poll_type", "can't be changed"]
  const type = (current?.poll_type ?? input.poll_type) as PollType
  if (input.hide_results !== undefined && !isOneOf(HIDE_RESULTS, input.hide_results)) {
    return ["hide_results", `must be one of ${HIDE_RESULTS.join(", ")}`]
  }
  if (current !== undefined && input.hide_results !== undefined && current.hide_results === "until_closed" &&
    input.hide_results !== "until_closed" && !isClosed(current)) {
    return ["hide_results", "can't reveal results before the poll closes"]
  }
  if (input.notify_on_closing_soon !== undefined && !isOneOf(NOTIFY_ON_CLOSING_SOON, input.notify_on_closing_soon)) {
    return ["notify_on_closing_soon", `must be one of ${NOTIFY_ON_CLOSING_SOON.join(", ")}`]
  }
  if (input.stance_reason_required !== undefined && !isOneOf(STANCE_REASON_REQUIRED, input.stance_reason_required)) {
    return ["stance_reason_required", `must be one of ${STANCE_REASON_REQUIRED.join(", ")}`]
  }
  if (input.anonymous === true && !POLL_TYPE_FACTS[type].anonymousAllowed) return ["anonymous", `is not available for a ${type} poll`]
  if (current !== undefined && input.anonymous === false && current.anonymous) return ["anonymous", "can't be turned off"]
  return null
}
