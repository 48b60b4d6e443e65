/**
 * A reply by e-mail (decisions §11): a message to `reply+TOKEN@REPLY_HOSTNAME` becomes a comment by the person
 * the address was made for, in the thread it was made for (answering the comment the mail was about), through
 * the same use case and rules as the API. Whatever way the message came (SMTP, IMAP, HTTP, the command line),
 * it is handled here once: by its Message-ID (or, without one, its sender, date and text), in the same
 * transaction as the comment.
 */
import { Effect } from "effect"
import type { Id, Topic, User } from "../domain/records.js"
import { mailTranslator, type Translate } from "../messages/index.js"
import { Store } from "../ports/store.js"
import { BODY_TOO_LONG } from "../rules/bodies.js"
import { inboundKey, isAutomatic, replyTokenOf } from "../rules/inbound.js"
import { hashApiKey as sha256 } from "../rules/keys.js"
import { plainMarkdown } from "../rules/markdown.js"
import { normaliseEmail } from "../rules/users.js"
import { createComment } from "./comments.js"
import { loadAccess, nowIso } from "./common.js"

/** A received message as the adapters read it: MIME parsed, quoted text and signature already removed. */
export interface InboundMail {
  /** the Message-ID header, without angle brackets; null when it has none */
  readonly messageId: string | null
  /** the sender's address */
  readonly from: string | null
  /** every recipient the message was delivered for (the envelope's, else To and Cc) */
  readonly recipients: ReadonlyArray<string>
  /** header names in lower case */
  readonly headers: ReadonlyMap<string, string>
  /** the person's own words */
  readonly body: string
}

export type InboundOutcome =
  /** a comment was posted */
  | { readonly _tag: "Posted"; readonly commentId: Id }
  /** handled before (the same Message-ID): nothing done again */
  | { readonly _tag: "Duplicate"; readonly outcome: string }
  /** an auto-reply, an out-of-office or a bounce: never posted */
  | { readonly _tag: "Automatic" }
  /** not to a reply address of this server, or to one nobody was given */
  | { readonly _tag: "UnknownAddress" }
  /** from an address that is not the person's */
  | { readonly _tag: "WrongSender" }
  /** the rules refused (a closed thread, a lost membership, no text): the person was told why by mail */
  | { readonly _tag: "Refused"; readonly reason: RefusalReason }

type RefusalReason = "closed" | "forbidden" | "noThread" | "empty" | "tooLong"

const outcomeName = (o: InboundOutcome) => (o._tag === "Refused" ? `refused:${o.reason}` : o._tag === "Posted" ? `posted:${o.commentId}` : o._tag.toLowerCase())

/** The short mail that says why a reply was not posted (in the person's language). */
const explainRefusal = Effect.fnUntraced(function*(user: User, title: string, reason: RefusalReason, path: string | null, topic: Topic) {
  const store = yield* Store
  const t: Translate = mailTranslator(user)
  yield* store.mail.enqueue({
    kind: "reply_refused",
    recipient_user_id: user.id,
    recipient_email: user.email!,
    subject: t("mail.replyRefusedSubject", { title }),
    body: t(`mail.replyRefused.${reason}`, { title: plainMarkdown(title) }),
    path,
    group_id: topic.group_id,
    actor_id: null,
    created_at: yield* nowIso
  })
})

/** Handles one received message: posts it as a comment, or says why not. */
export const receiveReply = Effect.fnUntraced(function*(mail: InboundMail, replyHost: string): Effect.fn.Return<InboundOutcome, never, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const key = inboundKey(mail)
    const before = yield* store.inboundMessages.outcomeOf(key)
    if (before !== undefined) return { _tag: "Duplicate", outcome: before } as const
    const outcome = yield* handle(mail, replyHost)
    // only what had an effect (a comment, a mail back) is remembered: anyone can send the rest, and unremembered
    // it costs nothing to see again
    if (outcome._tag === "Posted" || outcome._tag === "Refused") {
      yield* store.inboundMessages.record(key, outcomeName(outcome), yield* nowIso)
    }
    return outcome
  }))
})

const handle = Effect.fnUntraced(function*(mail: InboundMail, replyHost: string): Effect.fn.Return<InboundOutcome, never, Store> {
  const store = yield* Store
  if (isAutomatic(mail.headers, mail.from)) return { _tag: "Automatic" }
  const token = mail.recipients.map((r) => replyTokenOf(r, replyHost)).find((x) => x !== undefined)
  const reply = token === undefined ? undefined : yield* store.replyTokens.byHash(sha256(token))
  if (reply === undefined) return { _tag: "UnknownAddress" }
  const user = yield* store.users.byId(reply.user_id)
  // the address is a credential, and so is the sender: both must be the person's
  if (user === undefined || user.email === null || mail.from === null || normaliseEmail(mail.from) !== user.email) return { _tag: "WrongSender" }
  if (user.deactivated_at !== null) return { _tag: "WrongSender" }
  const topic = (yield* store.topics.byId(reply.topic_id))!
  const discussion = topic.topicable_type === "Discussion" && topic.topicable_id !== null ? yield* store.discussions.byId(topic.topicable_id) : undefined
  const title = discussion?.title ?? (topic.topicable_id === null ? "" : (yield* store.polls.byId(topic.topicable_id))?.title ?? "")
  const refuse = (reason: RefusalReason) =>
    Effect.as(explainRefusal(user, title, reason, discussion === undefined ? null : `/d/${discussion.key}`, topic), { _tag: "Refused", reason } as const)
  if (discussion === undefined || topic.discarded_at !== null) return yield* refuse("noThread")
  if (mail.body.trim() === "") return yield* refuse("empty")
  if (topic.closed_at !== null) return yield* refuse("closed")
  // the comment the mail was about, while it stands; a deleted one leaves the reply at the top of the thread
  const parent = reply.comment_id === null ? undefined : yield* store.comments.byId(reply.comment_id)
  const access = yield* loadAccess(user)
  const posted = yield* Effect.either(createComment(access, discussion.id, {
    body: mail.body,
    body_format: "md",
    ...(parent !== undefined && parent.discarded_at === null && parent.discussion_id === discussion.id ? { parent_id: parent.id } : {})
  }))
  if (posted._tag === "Left") {
    const left = posted.left
    return yield* refuse(left._tag !== "Invalid" ? "forbidden" : left.errors.body?.includes(BODY_TOO_LONG) ? "tooLong" : "empty")
  }
  return { _tag: "Posted", commentId: posted.right.comment.id }
})
