import { Effect } from "effect"
import type { Group, Page, User } from "../domain/records.js"
import { Store } from "../ports/store.js"
import { displayName } from "../rules/users.js"
import { nowIso } from "./common.js"

/**
 * The mail outbox: invitations and notifications are recorded here in the writing transaction.
 * A transport (SMTP) may send them later; without one they stay here for `convene mail list`.
 */
export const recordGroupInvitation = (group: Group, invitee: User, actor: User | null) =>
  Effect.gen(function*() {
    const store = yield* Store
    const who = actor === null ? "An administrator" : displayName(actor)
    return yield* store.mail.enqueue({
      kind: "group_invitation",
      recipient_user_id: invitee.id,
      recipient_email: invitee.email!,
      subject: `${who} invited you to join ${group.name}`,
      body: `${who} invited you to join the group "${group.name}".`,
      group_id: group.id,
      actor_id: actor?.id ?? null,
      created_at: yield* nowIso
    })
  })

export const listMail = (page: Page) => Effect.flatMap(Store, (store) => store.mail.list(page))

/** What a thread message is about. */
export interface ThreadMessage {
  readonly kind:
    | "new_discussion"
    | "discussion_edited"
    | "thread_invitation"
    | "comment_replied_to"
    | "poll_created"
    | "poll_invitation"
    | "poll_closing_soon"
    | "outcome_review_due"
  readonly group: Group | undefined
  readonly title: string
  readonly actor: User
  readonly message?: string | null
}

const SUBJECTS: Record<ThreadMessage["kind"], (who: string, title: string) => string> = {
  new_discussion: (who, title) => `${who} started a discussion: ${title}`,
  discussion_edited: (who, title) => `${who} edited the discussion: ${title}`,
  thread_invitation: (who, title) => `${who} invited you to the discussion: ${title}`,
  comment_replied_to: (who, title) => `${who} replied to your comment in: ${title}`,
  poll_created: (who, title) => `${who} started a poll: ${title}`,
  poll_invitation: (who, title) => `${who} invited you to vote: ${title}`,
  poll_closing_soon: (_who, title) => `Closing in 24 hours: ${title}`,
  outcome_review_due: (_who, title) => `Time to review the outcome of: ${title}`
}

/** A notification or invitation about a thread, recorded in the outbox (people without an address get none). */
export const recordThreadMessage = (recipient: User, m: ThreadMessage) =>
  Effect.gen(function*() {
    if (recipient.email === null) return
    const store = yield* Store
    const who = displayName(m.actor)
    const where = m.group === undefined ? "" : ` in ${m.group.name}`
    const subject = SUBJECTS[m.kind](who, m.title)
    yield* store.mail.enqueue({
      kind: m.kind,
      recipient_user_id: recipient.id,
      recipient_email: recipient.email,
      subject,
      body: `${subject}${where}.` + (m.message ? `\n\n${m.message}` : ""),
      group_id: m.group?.id ?? null,
      actor_id: m.actor.id,
      created_at: yield* nowIso
    })
  })
