import { Clock, Effect } from "effect"
import type { Group, Id, MailMessage, MailStatus, Page, Topic, User } from "../domain/records.js"
import { Store } from "../ports/store.js"
import { afterFailure } from "../rules/deliveries.js"
import { isNotification, type SendableMail } from "../rules/mail.js"
import { effectiveVolume, volumeAllows } from "../rules/volume.js"
import { plainMarkdown } from "../rules/markdown.js"
import { displayName } from "../rules/users.js"
import { nowIso } from "./common.js"
import { tellLive } from "./events.js"
import { mintSecrets, recordInvitation } from "./people.js"
import { mailTranslator, type Translate } from "../messages/index.js"

/**
 * The mail outbox: invitations and notifications are recorded here in the writing transaction; the mail
 * worker claims due messages, sends them and records the outcome here. Without a transport they wait.
 */
export const recordGroupInvitation = Effect.fnUntraced(function*(group: Group, invitee: User, actor: User | null, message: string | null = null) {
  const store = yield* Store
  const t = mailTranslator(invitee)
  const who = actor === null ? t("mail.anAdministrator") : displayName(actor)
  const invitation = yield* recordInvitation({ kind: "group", user: invitee, inviter: actor, group, message })
  return yield* store.mail.enqueue({
    invitation_id: invitation.id,
    kind: "group_invitation",
    recipient_user_id: invitee.id,
    recipient_email: invitee.email!,
    subject: t("mail.groupInvitationSubject", { who, group: group.name }),
    // the body is markdown: plain-text names go in escaped (they never become links or images)
    body: `${t("mail.groupInvitationBody", { who: plainMarkdown(who), group: plainMarkdown(group.name) })}${message === null ? "" : `\n\n${message.split("\n").map((l) => `> ${plainMarkdown(l)}`).join("\n")}`}`,
    path: `/g/${group.key}`,
    group_id: group.id,
    actor_id: actor?.id ?? null,
    created_at: yield* nowIso
  })
})

export const listMail = (status: MailStatus | undefined, page: Page) => Effect.flatMap(Store, (store) => store.mail.list(status, page))

const iso = (ms: number) => new Date(ms).toISOString()

/** A message to send, with the name of the person it comes from, in its recipient's language. */
export interface DueMail {
  readonly message: SendableMail
  readonly actorName: string | null
  readonly t: Translate
}

/**
 * Claims up to `limit` due messages for `leaseMs`. A claim that is never recorded (the process died
 * mid-send) expires and the message is tried again; a recorded success is never sent again.
 */
export const claimMail = Effect.fnUntraced(function*(limit: number, leaseMs: number, replyHost?: string): Effect.fn.Return<ReadonlyArray<DueMail>, never, Store> {
  const store = yield* Store
  const now = yield* Clock.currentTimeMillis
  return yield* store.transaction(Effect.gen(function*() {
    const due = yield* store.mail.claimDue(iso(now), iso(now + leaseMs), limit)
    const ids = [...new Set(due.flatMap((m) => [m.actor_id, m.recipient_user_id]).filter((id): id is Id => id !== null))]
    const people = new Map((yield* store.users.byIds(ids)).map((u) => [u.id, u]))
    const languageOf = (m: MailMessage) => mailTranslator(m.recipient_user_id === null ? undefined : people.get(m.recipient_user_id))
    const claimed = yield* Effect.forEach(due, (m) => mintSecrets(m, languageOf(m), replyHost))
    return claimed.map((message) => {
      const actor = message.actor_id === null ? undefined : people.get(message.actor_id)
      return { message, actorName: actor === undefined ? null : displayName(actor), t: languageOf(message) }
    })
  }))
})

export type SendOutcome = { readonly ok: true; readonly reply: string } | { readonly ok: false; readonly error: string }

const failedPatch = (attempts: number, next: ReturnType<typeof afterFailure>, dueAt: string | null, error: string) => ({
  status: next.status,
  attempts,
  next_attempt_at: next.status === "failed" ? iso(next.nextAttemptMs) : dueAt,
  last_error: error.slice(0, 500),
  server_reply: null,
  sent_at: null
})

/** Records a send: sent with the server's reply, or failed (tried again after the next delay) or dead after the last. */
export const recordMail = Effect.fnUntraced(function*(message: MailMessage, outcome: SendOutcome, retryDelaysMs: ReadonlyArray<number>): Effect.fn.Return<MailStatus, never, Store> {
  const store = yield* Store
  const now = yield* Clock.currentTimeMillis
  const attempts = message.attempts + 1
  const patch = outcome.ok
    ? { status: "sent" as const, attempts, next_attempt_at: message.next_attempt_at, last_error: null, server_reply: outcome.reply.slice(0, 500), sent_at: iso(now) }
    : failedPatch(attempts, afterFailure(attempts, now, retryDelaysMs), message.next_attempt_at, outcome.error)
  yield* store.transaction(store.mail.record(message.id, patch))
  return patch.status
})

export const mailBacklog = Effect.flatMap(Store, (s) => s.mail.backlog())

/** `convene mail retry`: failed or dead messages by id, or every dead one, due now. */
export const retryMail = Effect.fnUntraced(function*(ids: ReadonlyArray<Id> | undefined) {
  const store = yield* Store
  const now = yield* nowIso
  return yield* store.transaction(store.mail.retry(ids, now))
})

/** Milliseconds until the next message is due (undefined: none waiting). */
export const msUntilNextMail = Effect.gen(function*() {
  const store = yield* Store
  const at = yield* store.mail.nextDueAt()
  if (at === undefined) return undefined
  return Math.max(0, Date.parse(at) - (yield* Clock.currentTimeMillis))
})

/** What a thread message is about. */
export interface ThreadMessage {
  readonly kind:
    | "new_discussion"
    | "discussion_edited"
    | "thread_invitation"
    | "comment_replied_to"
    | "poll_created"
    | "poll_edited"
    | "membership_requested"
    | "membership_request_approved"
    | "membership_request_declined"
    | "group_deleted"
    | "discussion_moved"
    | "poll_invitation"
    | "poll_closing_soon"
    | "outcome_review_due"
    | "outcome_created"
    | "new_comment"
    | "stance_created"
    | "user_mentioned"
    | "vote_delegated"
    | "poll_reminder"
  readonly group: Group | undefined
  /** the thread it is about: its volume decides, and a reply to the mail becomes a comment there */
  readonly topicId?: Id
  /** the comment it is about: a reply answers it */
  readonly commentId?: Id
  readonly title: string
  readonly actor: User
  readonly message?: string | null
  /** what the message concerns: `/d/KEY` or `/p/KEY` */
  readonly path: string
  /** a calendar invitation the message carries (`meeting.ics`) */
  readonly calendar?: string
  /** a guest invitation: the message carries a link that lets the person in (made when it is sent) */
  readonly invitation?: { readonly kind: "thread" | "poll"; readonly topic: Topic }
}


/** A notification or invitation about a thread, kept in the app and recorded in the outbox (people without an address get no mail). */
export const recordThreadMessage = Effect.fnUntraced(function*(recipient: User, m: ThreadMessage) {
  const store = yield* Store
  // a notification comes only at a volume that wants it, the thread's winning over the group's (invitations always come)
  if (m.invitation === undefined && isNotification(m.kind)) {
    const thread = m.topicId === undefined ? undefined : yield* store.volumes.ofThread(recipient.id, m.topicId)
    const group = m.group === undefined ? undefined : yield* store.volumes.ofGroup(recipient.id, m.group.id)
    if (!volumeAllows(effectiveVolume(thread, group), m.kind)) return
  }
  // kept in the app too (decisions §13), for a person without an address as well
  if (recipient.deactivated_at === null) {
    yield* store.notifications.insert({
      user_id: recipient.id, kind: m.kind, actor_id: m.actor.id, title: m.title, path: m.path, group_id: m.group?.id ?? null, topic_id: m.topicId ?? null,
      created_at: yield* nowIso
    })
    yield* tellLive("notification", { user_id: recipient.id })
  }
  if (recipient.email === null) return
  const t = mailTranslator(recipient)
  const who = displayName(m.actor)
  const subject = t(`mail.${m.kind}`, { who, title: m.title })
  // the body is markdown: the names, the title and the inviter's message are plain text, escaped
  const about = t(`mail.${m.kind}`, { who: plainMarkdown(who), title: plainMarkdown(m.title) })
  const sentence = m.group === undefined ? t("mail.sentence", { about }) : t("mail.sentenceIn", { about, group: plainMarkdown(m.group.name) })
  const invitation = m.invitation === undefined
    ? undefined
    : yield* recordInvitation({ kind: m.invitation.kind, user: recipient, inviter: m.actor, group: m.group, topic: m.invitation.topic, message: m.message ?? null })
  yield* store.mail.enqueue({
    invitation_id: invitation?.id ?? null,
    kind: m.kind,
    recipient_user_id: recipient.id,
    recipient_email: recipient.email,
    subject,
    body: sentence + (m.message ? `\n\n${plainMarkdown(m.message)}` : ""),
    path: m.path,
    group_id: m.group?.id ?? null,
    actor_id: m.actor.id,
    created_at: yield* nowIso,
    topic_id: m.topicId ?? null,
    comment_id: m.commentId ?? null,
    calendar: m.calendar ?? null
  })
})
