/**
 * What readers and webhooks may see of a record, decided here once: the serializers and the webhook
 * messages ask, they do not decide.
 */
import type { Poll, Stance } from "../domain/polls.js"
import type { Comment, Discussion, Id } from "../domain/records.js"
import { canSeeResults } from "./polls.js"

/** A deleted discussion keeps its record; its title and description are hidden. */
export const revealDiscussionText = (d: Discussion): { title: string | null; description: string | null } =>
  d.discarded_at === null ? { title: d.title, description: d.description } : { title: null, description: null }

/** A deleted comment keeps its place in the thread; its body is hidden. */
export const revealCommentBody = (c: Comment): string | null => (c.discarded_at === null ? c.body : null)

/** A deleted poll keeps its record; its title and details are hidden. */
export const revealPollText = (p: Poll): { title: string | null; details: string | null } =>
  p.discarded_at === null ? { title: p.title, details: p.details } : { title: null, details: null }

/** Who gave a ballot (Loomio's `inviter_id`): nobody in an anonymous poll, where it would say whose the ballot is. */
export const revealInviter = (p: Poll, s: Stance): Id | null => (p.anonymous ? null : s.inviter_id)

/** Which delegate's vote cast a ballot (decisions §15): nobody's in an anonymous poll, not even to its voter. */
export const revealDelegatedBy = (p: Poll, s: Stance): Id | null => (p.anonymous ? null : s.delegated_by)

/** Who cast a ballot: nobody in an anonymous poll, but readers always see their own. */
export const revealVoter = (readerId: Id, p: Poll, s: Stance): Id | null =>
  p.anonymous && s.participant_id !== readerId ? null : s.participant_id

/**
 * What a vote's webhook message may say. Its readers are whoever the destination shows it to, so it
 * reveals what anyone may see now: the voter unless the poll is anonymous; the choice and reason only
 * while results are visible to someone who has not voted (canSeeResults), and never in an anonymous poll.
 */
export const revealVoteEvent = (p: Poll): { voter: boolean; choice: boolean } => ({
  voter: !p.anonymous,
  choice: !p.anonymous && canSeeResults(p, undefined)
})
