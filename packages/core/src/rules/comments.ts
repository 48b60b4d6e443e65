/** Loomio `ability/comment.rb`, pure. A closed thread blocks new comments, edits and deletes. */
import type { Comment, Discussion, Reaction } from "../domain/records.js"
import type { Access } from "./access.js"
import { isDiscussionAdmin, isDiscussionMember } from "./discussions.js"
import { canShowTopic, type TopicContext } from "./topics.js"

const open = (ctx: TopicContext, d: Discussion) => d.discarded_at === null && ctx.topic.closed_at === null

/** create: discussion kept and open, caller a discussion member (guests included). */
export const canCreateComment = (access: Access, ctx: TopicContext, d: Discussion): boolean =>
  open(ctx, d) && canShowTopic(access, ctx) && isDiscussionMember(access, ctx)

/**
 * update: (member and author, when `members_can_edit_comments`) or (admin, when
 * `admins_can_edit_user_content`).
 */
export const canEditComment = (access: Access, ctx: TopicContext, d: Discussion, c: Comment): boolean =>
  c.discarded_at === null &&
  open(ctx, d) &&
  canShowTopic(access, ctx) &&
  ((ctx.group?.members_can_edit_comments === true && c.author_id === access.user.id && isDiscussionMember(access, ctx)) ||
    (ctx.group?.admins_can_edit_user_content === true && isDiscussionAdmin(access, ctx)))

/** discard: (author and member, where the group's `members_can_delete_comments`) or admin. */
export const canDeleteComment = (access: Access, ctx: TopicContext, d: Discussion, c: Comment): boolean =>
  c.discarded_at === null &&
  open(ctx, d) &&
  canShowTopic(access, ctx) &&
  ((c.author_id === access.user.id && isDiscussionMember(access, ctx) && ctx.group?.members_can_delete_comments !== false) || isDiscussionAdmin(access, ctx))

/** A reaction is removed by the person who made it, and nobody else. */
export const canRemoveReaction = (access: Access, reaction: Pick<Reaction, "user_id">): boolean => reaction.user_id === access.user.id

/** Reacting is taking part: a discussion member who can read the thread. */
export const canReact = (access: Access, ctx: TopicContext): boolean =>
  canShowTopic(access, ctx) && isDiscussionMember(access, ctx)
