/**
 * Who may download a file (decisions §14): those who may read the record it is attached to (that record's own rule:
 * the thread's, the poll's; a deleted comment's file is nobody's), or its uploader while no record holds it; anyone
 * else finds nothing (404, whatever the reason).
 */
import { Effect } from "effect"
import type { AttachableType, AttachedFile } from "../domain/files.js"
import type { Id } from "../domain/records.js"
import { notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { showDiscussion } from "./discussions.js"
import { visiblePoll } from "./polls/read.js"

/** Whether the reader may read the record a file is attached to (the record's own rule: the thread's, the poll's). */
const recordReadable = (access: Access, type: AttachableType, recordId: Id): Effect.Effect<boolean, never, Store> =>
  Effect.gen(function*() {
    const store = yield* Store
    switch (type) {
      case "Comment": {
        const comment = yield* store.comments.byId(recordId)
        if (comment === undefined || comment.discarded_at !== null) return false
        const discussion = yield* store.discussions.byId(comment.discussion_id)
        return discussion !== undefined && (yield* Effect.either(showDiscussion(access, discussion.key)))._tag === "Right"
      }
      case "Discussion": {
        const discussion = yield* store.discussions.byId(recordId)
        return discussion !== undefined && discussion.discarded_at === null && (yield* Effect.either(showDiscussion(access, discussion.key)))._tag === "Right"
      }
      case "Poll":
        return (yield* Effect.either(visiblePoll(access, recordId)))._tag === "Right"
      case "Outcome": {
        const outcome = yield* store.outcomes.byId(recordId)
        return outcome !== undefined && (yield* Effect.either(visiblePoll(access, outcome.poll_id)))._tag === "Right"
      }
    }
  })

/**
 * A file the reader may download (decisions §14): attached to a record they may read, or their own upload not yet
 * attached; its name as stored. Anything else is not found, whatever the reason.
 */
export const downloadable = Effect.fnUntraced(function*(access: Access | undefined, signedId: string, filename: string): Effect.fn.Return<AttachedFile, NotFound, Store> {
  const store = yield* Store
  const file = yield* store.files.bySignedId(signedId)
  const missing = notFound("File not found")
  if (file === undefined || file.attachment.filename !== filename || access === undefined) return yield* missing
  const a = file.attachment
  const allowed = a.record_type === null || a.record_id === null ? a.uploader_id === access.user.id : yield* recordReadable(access, a.record_type, a.record_id)
  return allowed ? file : yield* missing
})

