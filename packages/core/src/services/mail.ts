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
