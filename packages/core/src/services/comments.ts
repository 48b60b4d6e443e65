/** Comments: create (replies nest as thread items), edit, soft delete; permissions from `rules/comments.ts`. */
import { Effect } from "effect"
import type { Comment, Discussion, Id, Topic, User } from "../domain/records.js"
import { forbidden, type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { bodyLengthErrors, changedBody, cleanBody } from "../rules/bodies.js"
import { CreateComment, DeleteComment, EditComment, type Permit } from "../policies.js"
import type { TopicContext } from "../rules/topics.js"
import { nowIso } from "./common.js"
import { type Activity, loudListeners, notifyLoud, notifyMentions, notifyReplied } from "./notify.js"
import { recordItem, replyParent, threadEvent, topicById, topicContext } from "./threads/kernel.js"
import { isBlank } from "../rules/values.js"
import * as Inputs from "../domain/inputs.js"
import type { Volume } from "../ports/people.js"
import { readStateOf } from "../rules/readState.js"
import type { ReadView } from "./reading.js"
import { attachFiles } from "./attachments.js"
import type { AttachedFile } from "../domain/files.js"

export interface CommentView {
  readonly comment: Comment
  readonly discussion: Discussion
  readonly topic: Topic
  /** the author's read state as the new comment leaves it (the answer's reader fields, not read again) */
  readonly read?: ReadView
  /** the comment's files as the write left them (undefined: the write did not set them) */
  readonly files?: ReadonlyArray<AttachedFile>
  /** the discussion's files, read before the write (which does not change them) */
  readonly discussionFiles?: ReadonlyArray<AttachedFile>
}

/** What creating or editing a comment takes (declared once in domain/inputs.ts). */
export type CommentInput = typeof Inputs.CommentInput.Type


/** The discussion and thread around a discussion id. */
const inDiscussion = Effect.fnUntraced(function*(access: Access, discussionId: Id) {
  const store = yield* Store
  const discussion = yield* store.discussions.byId(discussionId, access.user.id)
  if (discussion === undefined) return yield* notFound(`Discussion ${discussionId} not found`)
  const topic = yield* topicById(discussion.topic_id)
  return { discussion, topic, ctx: yield* topicContext(access, topic) }
})

/** A kept comment with its discussion and thread; a deleted comment is not found. */
const loadKept = Effect.fnUntraced(function*(access: Access, id: Id) {
  const store = yield* Store
  const comment = yield* store.comments.byId(id)
  if (comment === undefined || comment.discarded_at !== null) return yield* notFound(`Comment ${id} not found`)
  return { comment, ...(yield* inDiscussion(access, comment.discussion_id)) }
})
type KeptComment = Effect.Effect.Success<ReturnType<typeof loadKept>>

const reload = Effect.fnUntraced(function*(id: Id): Effect.fn.Return<CommentView, never, Store> {
  const store = yield* Store
  const comment = (yield* store.comments.byId(id))!
  const discussion = (yield* store.discussions.byId(comment.discussion_id))!
  return { comment, discussion, topic: (yield* store.topics.byId(discussion.topic_id))! }
})

/** The comment, its thread item, notices and event, where CreateComment allowed it. */
const postComment = Effect.fnUntraced(function*(
  access: Access,
  ctx: TopicContext,
  discussion: Discussion,
  topic: Topic,
  input: CommentInput,
  loud: ReadonlyArray<Id>,
  volume: Volume | undefined
): Effect.fn.Return<CommentView, Invalid, Store | Permit<"CreateComment">> {
  yield* CreateComment.needed
  const store = yield* Store
  // a comment with a file may say nothing more (the spec: "body required unless an attachment is provided")
  if (isBlank(input.body) && (input.files ?? []).length === 0) return yield* invalid("body", "can't be blank")
  const tooLong = bodyLengthErrors(input.body)
  if (tooLong !== null) return yield* invalid("body", tooLong)
  let parent: Comment | undefined
  if (input.parent_id != null) {
    parent = yield* store.comments.byId(input.parent_id)
    if (parent === undefined || parent.discussion_id !== discussion.id) {
      return yield* invalid("parent_id", "must be a comment of the same discussion")
    }
    if (parent.discarded_at !== null) return yield* invalid("parent_id", "has been deleted")
  }
  const format = input.body_format ?? "md"
  const now = yield* nowIso
  const comment = yield* store.comments.insert({
    discussion_id: discussion.id,
    parent_id: parent?.id ?? null,
    author_id: access.user.id,
    body: cleanBody(input.body ?? "", format),
    body_format: format,
    created_at: now
  })
  const files = input.files !== undefined && input.files.length > 0 ? yield* attachFiles(access, "Comment", comment.id, input.files) : []
  const parentItem = parent === undefined
    ? "thread" as const
    : yield* replyParent(topic, (yield* store.items.byItemable("Comment", parent.id))!)
  const appended = yield* recordItem({
    topic,
    kind: "new_comment",
    itemable_type: "Comment",
    itemable_id: comment.id,
    actor: access.user,
    parent: parentItem,
    bump: true
  })
  const activity: Activity = {
    topic, group: ctx.group, actor: access.user, title: discussion.title, path: `/d/${discussion.key}#comment-${comment.id}`, commentId: comment.id, message: comment.body
  }
  const told = new Set<Id>()
  if (parent !== undefined) yield* notifyReplied(parent.author_id, activity, told)
  yield* notifyMentions(comment.body, activity, told)
  yield* notifyLoud("new_comment", activity, told, loud)
  yield* threadEvent("new_comment", topic, discussion, access.user, { comment })
  // the thread as this comment left it (its counters and activity moved): nothing later in the write changes it
  return { comment, discussion, topic: appended.topic, read: { reader: appended.actorReader, state: readStateOf(appended.topic, appended.actorReader), volume }, files }
})

/**
 * POST /comments. A reply's parent must be a kept comment of the same discussion (else 422); the reply's
 * thread item nests under the parent's item, and the parent's author is told in the mail outbox.
 */
export const createComment = Effect.fnUntraced(function*(
  access: Access,
  discussionId: Id,
  input: CommentInput
): Effect.fn.Return<CommentView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  // the discussion, its group, the caller's place in the thread and who listens Loud are read before the write
  // begins: the thread's row is then held only while the thread itself is read again (its state now) and written
  const seen = yield* inDiscussion(access, discussionId)
  const loud = yield* loudListeners(seen.topic, seen.ctx.group)
  // the author's own volume there, for the answer's reader fields (it came with the discussion's read)
  const volume = yield* store.volumes.ofThread(access.user.id, seen.topic.id)
  // the discussion's files, for the answer (none came with the discussion's read: nothing is read)
  const discussionFiles = yield* store.files.ofRecords("Discussion", [seen.discussion.id])
  return yield* store.transaction(Effect.gen(function*() {
    const { discussion } = seen
    const topic = yield* topicById(discussion.topic_id)
    const ctx = Object.assign({}, seen.ctx, { topic })
    const view = yield* CreateComment.check([access, ctx, discussion], () => forbidden("Not authorized to create Comment."))(postComment(access, ctx, discussion, topic, input, loud, volume))
    return { ...view, discussionFiles }
  }))
})

/** A kept comment the caller may edit (404 when there is none to see, 403 when EditComment refuses), and `step` on it with that permit. */
const editing = <A, E, R>(access: Access, id: Id, step: (kept: KeptComment) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(loadKept(access, id), (kept) =>
    EditComment.check([access, kept.ctx, kept.discussion, kept.comment], () => forbidden("Not authorized to update Comment."))(step(kept)))

/** A kept comment the caller may edit, for its edit page. */
export const editableComment = (access: Access, id: Id) => editing(access, id, (kept) => Effect.as(EditComment.needed, kept))

/** PATCH/PUT /comments/{id}: sets `edited_at`. */
export const updateComment = Effect.fnUntraced(function*(
  access: Access,
  id: Id,
  input: CommentInput
): Effect.fn.Return<CommentView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(editing(access, id, ({ comment }) => Effect.gen(function*() {
    yield* EditComment.needed
    if (input.body !== undefined && isBlank(input.body)) {
      const files = input.files ?? (yield* store.files.ofRecords("Comment", [comment.id]))
      if (files.length === 0) return yield* invalid("body", "can't be blank")
    }
    const tooLong = bodyLengthErrors(input.body)
    if (tooLong !== null) return yield* invalid("body", tooLong)
    const body = changedBody({ text: comment.body, format: comment.body_format }, { text: input.body, format: input.body_format })
    const now = yield* nowIso
    const files = input.files === undefined ? undefined : yield* attachFiles(access, "Comment", comment.id, input.files)
    yield* store.comments.update(comment.id, {
      body: body.text,
      body_format: body.format,
      edited_at: now,
      updated_at: now
    })
    const view = yield* reload(comment.id)
    return files === undefined ? view : { ...view, files }
  })))
})

/** A comment soft-deleted, where DeleteComment allowed it. */
const discardComment = Effect.fnUntraced(function*(access: Access, comment: Comment): Effect.fn.Return<CommentView, never, Store | Permit<"DeleteComment">> {
  yield* DeleteComment.needed
  const store = yield* Store
  const now = yield* nowIso
  yield* store.comments.update(comment.id, { discarded_at: now, discarded_by: access.user.id, updated_at: now })
  return yield* reload(comment.id)
})

/** DELETE /comments/{id}: soft delete; the body is hidden from then on, replies stay in place. */
export const deleteComment = Effect.fnUntraced(function*(access: Access, id: Id): Effect.fn.Return<CommentView, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { comment, ctx, discussion } = yield* loadKept(access, id)
    return yield* DeleteComment.check([access, ctx, discussion, comment], () => forbidden("Not authorized to destroy Comment."))(discardComment(access, comment))
  }))
})

/** Authors of comments, for side-loading. */
export const authors = (views: ReadonlyArray<CommentView>): Effect.Effect<ReadonlyArray<User>, never, Store> =>
  Effect.flatMap(Store, (store) => store.users.byIds([...new Set(views.map((v) => v.comment.author_id))]))
