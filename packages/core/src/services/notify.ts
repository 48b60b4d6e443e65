/**
 * The notifications a thread's activity sends beyond its announcements (decisions §11): the author a comment
 * replies to, the people `@username` mentions, and everyone listening Loud to every comment and vote. Each person is told once per write (the
 * `told` set), within their volume (recordThreadMessage decides). Call inside the writing transaction.
 */
import { Effect } from "effect"
import type { Group, Id, Topic, User } from "../domain/records.js"
import { Store } from "../ports/store.js"
import { mentionedUsernames } from "../rules/mentions.js"
import { isGuest } from "../rules/topics.js"
import { recordThreadMessage, type ThreadMessage } from "./mail.js"

export interface Activity {
  readonly topic: Topic
  readonly group: Group | undefined
  readonly actor: User
  readonly title: string
  /** where the mail links: the thread, the comment (`/d/KEY#comment-ID`) or the poll */
  readonly path: string
  readonly commentId?: Id
  /** the text the mail quotes (a comment's body) */
  readonly message?: string | null
}

const about = (a: Activity, kind: ThreadMessage["kind"]): ThreadMessage => ({
  kind, group: a.group, title: a.title, actor: a.actor, path: a.path, topicId: a.topic.id,
  ...(a.commentId === undefined ? {} : { commentId: a.commentId }),
  ...(a.message === undefined ? {} : { message: a.message })
})

/** Whether a person takes part in the thread: an accepted member of its group, or a guest. */
const takesPart = Effect.fnUntraced(function*(user: User, topic: Topic, group: Group | undefined) {
  const store = yield* Store
  if (group !== undefined) {
    const m = yield* store.memberships.activeFor(group.id, user.id)
    if (m !== undefined && m.accepted_at !== null) return true
  }
  return isGuest(yield* store.readers.find(topic.id, user.id))
})

/** Tells the author of the comment replied to, while they take part in the thread (not when they reply to themselves). */
export const notifyReplied = Effect.fnUntraced(function*(authorId: Id, a: Activity, told: Set<Id>) {
  const store = yield* Store
  if (authorId === a.actor.id || told.has(authorId)) return
  const author = yield* store.users.byId(authorId)
  if (author === undefined || author.deactivated_at !== null || !(yield* takesPart(author, a.topic, a.group))) return
  told.add(author.id)
  yield* recordThreadMessage(author, about(a, "comment_replied_to"))
})

/** Tells the members `text` mentions (who may read the thread, not the actor); adds them to `told`. */
export const notifyMentions = Effect.fnUntraced(function*(text: string | null | undefined, a: Activity, told: Set<Id>) {
  const store = yield* Store
  for (const username of mentionedUsernames(text)) {
    const user = yield* store.users.byUsername(username)
    if (user === undefined || user.id === a.actor.id || told.has(user.id) || user.deactivated_at !== null) continue
    if (!(yield* takesPart(user, a.topic, a.group))) continue
    told.add(user.id)
    yield* recordThreadMessage(user, about(a, "user_mentioned"))
  }
})

/**
 * Who listens Loud to a thread, read where the write chooses: a comment reads it before its transaction, so not
 * while the thread's row is held; a vote inside its own, under its poll's lock.
 */
export const loudListeners = (topic: Topic, group: Group | undefined) =>
  Effect.flatMap(Store, (store) => store.volumes.loudListeners(topic.id, group?.id ?? null))

/** Tells those of `listeners` (loudListeners) who are not the actor and not told yet about a comment or a vote. */
export const notifyLoud = Effect.fnUntraced(function*(kind: "new_comment" | "stance_created", a: Activity, told: Set<Id>, listeners: ReadonlyArray<Id>) {
  const store = yield* Store
  const ids = listeners.filter((id) => id !== a.actor.id && !told.has(id))
  for (const user of yield* store.users.byIds(ids)) {
    if (user.deactivated_at !== null || user.bot) continue
    told.add(user.id)
    yield* recordThreadMessage(user, about(a, kind))
  }
})
