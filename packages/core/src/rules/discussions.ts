/** Loomio `ability/discussion.rb`, pure. */
import type { Discussion, Group } from "../domain/records.js"
import { type Access, isAdmin, isMember } from "./access.js"
import { canShowTopic, isGuest, type TopicContext } from "./topics.js"

/** create: group admin, or member when `members_can_start_discussions`. */
export const canStartDiscussion = (access: Access, group: Group): boolean =>
  isAdmin(access, group.id) || (group.members_can_start_discussions && isMember(access, group.id))

/** Discussion members: group members and the thread's guests. */
export const isDiscussionMember = (access: Access, ctx: TopicContext): boolean =>
  (ctx.group !== undefined && isMember(access, ctx.group.id)) || isGuest(ctx.reader)

/** Discussion admins: group admins. (`admins_can_edit_user_content` does not apply to discussions.) */
export const isDiscussionAdmin = (access: Access, ctx: TopicContext): boolean =>
  ctx.group !== undefined && isAdmin(access, ctx.group.id)

const kept = (d: Discussion) => d.discarded_at === null

/** update (also close, reopen): author, admin, or member when `members_can_edit_discussions`. */
export const canEditDiscussion = (access: Access, ctx: TopicContext, d: Discussion): boolean =>
  kept(d) &&
  canShowTopic(access, ctx) &&
  (d.author_id === access.user.id ||
    isDiscussionAdmin(access, ctx) ||
    (ctx.group !== undefined && ctx.group.members_can_edit_discussions && isDiscussionMember(access, ctx)))

/** discard: author or admin. */
export const canDeleteDiscussion = (access: Access, ctx: TopicContext, d: Discussion): boolean =>
  kept(d) && canShowTopic(access, ctx) && (d.author_id === access.user.id || isDiscussionAdmin(access, ctx))
