import { group } from "../group.js"
import { type Access, badRequest, Comments, Inputs, type Store } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ALL, envelope } from "../envelope.js"
import { type ApiError, ok, respond } from "../errors.js"
import { decode, inputFields, numericId } from "../request.js"
import { commentJson, discussionJson, topicJson, userJson } from "../serializers.js"

const decodeInput = decode(Inputs.CommentInput)
const input = Effect.flatMap(inputFields("comment"), decodeInput)

/** A path id that is not a whole number names no comment. */
/** Runs a use case on one comment and answers with the comment, its discussion, thread and author. */
const one = Effect.fnUntraced(function*<E, R>(run: (access: Access) => Effect.Effect<Comments.CommentView, E, R>) {
  const access = yield* requireAccess
  const view = yield* run(access)
  const users = yield* Comments.authors([view])
  return ok(envelope(ALL, "comments", [commentJson(view.comment)], [
    { type: "discussion", root: "discussions", records: [discussionJson(view)] },
    { type: "topic", root: "topics", records: [topicJson(view.topic)] },
    { type: "user", root: "users", records: users.map((u) => userJson(access, u)) }
  ]))
})

const update = (id: string) =>
  one((access) => Effect.flatMap(numericId(id, "Comment"), (n) => Effect.flatMap(input, (i) => Comments.updateComment(access, n, i))))

export const B2CommentsLive = group(ConveneApi, "b2.comments", (handlers) =>
  handlers
    .handleRaw("createComment", () =>
      respond(one((access) =>
        Effect.flatMap(input, (i): Effect.Effect<Comments.CommentView, ApiError, Store> =>
          i.discussion_id === undefined
            ? Effect.fail(badRequest("Missing required field: discussion_id"))
            : Comments.createComment(access, i.discussion_id, i))
      )))
    .handleRaw("updateComment", ({ path }) => respond(update(path.id)))
    .handleRaw("replaceComment", ({ path }) => respond(update(path.id)))
    .handleRaw("deleteComment", ({ path }) =>
      respond(one((access) => Effect.flatMap(numericId(path.id, "Comment"), (n) => Comments.deleteComment(access, n))))))
