import { group } from "../group.js"
import { type Access, Attachments, badRequest, Comments } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ALL, envelope } from "../envelope.js"
import { numericId } from "../request.js"
import { commentJson, topicJson, userJson } from "../serializers.js"
import { discussionRecords } from "./discussions.js"

/** A comment with its discussion, thread and author. */
const document = (access: Access) => (view: Comments.CommentView) =>
  Effect.zipWith(
    // the files as the write left them, else read
    Effect.zip(Comments.authors([view]), view.files === undefined ? Attachments.filesOf("Comment", [view.comment.id]) : Effect.succeed(new Map([[view.comment.id, view.files]]))),
    discussionRecords(access, [view], view.read, view.discussionFiles),
    ([users, files], discussions) =>
    envelope(ALL, "comments", [commentJson(view.comment, files.get(view.comment.id) ?? [])], [
      { type: "discussion", root: "discussions", records: discussions },
      { type: "topic", root: "topics", records: [topicJson(view.topic)] },
      { type: "user", root: "users", records: users.map((u) => userJson(access, u)) }
    ]))

/** A path id that is not a whole number names no comment. */
const commentId = (id: string) => numericId(id, "Comment")

export const B2CommentsLive = group(ConveneApi, "b2.comments", requireAccess, (handlers) => {
  const update = ({ access, path, payload }: { access: Access; path: { id: string }; payload: Comments.CommentInput }) =>
    Effect.flatMap(Effect.flatMap(commentId(path.id), (id) => Comments.updateComment(access, id, payload)), document(access))
  return handlers
    .handle("createComment", ({ access, payload }) =>
      payload.discussion_id === undefined
        ? Effect.fail(badRequest("Missing required field: discussion_id"))
        : Effect.flatMap(Comments.createComment(access, payload.discussion_id, payload), document(access)))
    .handle("updateComment", update)
    .handle("replaceComment", update)
    .handle("deleteComment", ({ access, path }) =>
      Effect.flatMap(Effect.flatMap(commentId(path.id), (id) => Comments.deleteComment(access, id)), document(access)))
})
