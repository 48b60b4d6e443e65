/**
 * A person's own account (decisions §12, "Your account"): **Download my data** and **Delete my account**. The
 * operator's versions (users.ts) act on anyone; these act on the signed-in person alone (the OwnAccount policy).
 */
import { Clock, Effect } from "effect"
import type { Group, Membership, User } from "../domain/records.js"
import type { Poll } from "../domain/polls.js"
import { forbidden, type Forbidden, type Invalid, invalid, type NotFound } from "../errors.js"
import { OwnAccount, type Permit } from "../policies.js"
import { Store, type WrittenBy } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { mailTranslator } from "../messages/index.js"
import { hashApiKey as sha256 } from "../rules/keys.js"
import { isEmail, normaliseEmail } from "../rules/users.js"
import { redactUser } from "./users.js"

/** What **Download my data** holds: the profile, the memberships with their groups, and all the person wrote. */
export interface AccountData extends WrittenBy {
  readonly user: User
  readonly memberships: ReadonlyArray<{ readonly membership: Membership; readonly group: Group }>
  /** the keys links are made of: each written record's discussion or poll */
  readonly discussionKeys: ReadonlyMap<number, string>
  readonly pollKeys: ReadonlyMap<number, string>
}

const gather = Effect.fnUntraced(function*(access: Access): Effect.fn.Return<AccountData, never, Store | Permit<"OwnAccount">> {
  yield* OwnAccount.needed
  const store = yield* Store
  const user = access.user
  const written = yield* store.users.writtenBy(user.id)
  const groups = new Map((yield* store.groups.byIds([...access.memberships.keys()])).map((g) => [g.id, g]))
  const memberships = [...access.memberships.values()].flatMap((membership) => {
    const group = groups.get(membership.group_id)
    return group === undefined ? [] : [{ membership, group }]
  })
  const discussions = yield* store.discussions.byTopicIds([...new Set(written.comments.map((c) => c.topic_id))])
  const polls: ReadonlyArray<Poll> = yield* store.polls.byIds([...new Set([...written.stances, ...written.outcomes].map((r: { poll_id: number }) => r.poll_id))])
  return {
    ...written,
    user,
    memberships,
    discussionKeys: new Map([...written.discussions, ...discussions].map((d) => [d.id, d.key])),
    pollKeys: new Map([...written.polls, ...polls].map((p) => [p.id, p.key]))
  }
})

/** **Download my data**: everything about the signed-in person, to take away. */
export const accountData = (access: Access): Effect.Effect<AccountData, Forbidden, Store> =>
  OwnAccount.check([access], () => forbidden("Sign in to download your data"))(gather(access))

const closing = Effect.fnUntraced(function*(access: Access): Effect.fn.Return<User, NotFound, Store | Permit<"OwnAccount">> {
  yield* OwnAccount.needed
  return yield* redactUser({ id: access.user.id })
})

/**
 * **Delete my account**, confirmed by typing one's e-mail address: as `convene users redact` (name and address gone,
 * what the person wrote kept under a placeholder name, every session and key ended).
 */
export const deleteOwnAccount = Effect.fnUntraced(function*(access: Access, confirmation: string): Effect.fn.Return<User, Invalid | Forbidden | NotFound, Store> {
  if (access.user.email === null || normaliseEmail(confirmation) !== access.user.email) return yield* invalid("email", "is not your e-mail address")
  return yield* OwnAccount.check([access], () => forbidden("Only you can delete your account"))(closing(access))
})



const iso = (ms: number) => new Date(ms).toISOString()

/** How long the link to a new address works. */
export const EMAIL_CHANGE_TTL_MS = 24 * 3600_000
/** At most this many changes asked for in an hour (each sends a mail to an address the person types). */
const EMAIL_CHANGES_PER_HOUR = 5

const askingForNewAddress = Effect.fnUntraced(function*(access: Access, address: string): Effect.fn.Return<void, Invalid, Store | Permit<"OwnAccount">> {
  yield* OwnAccount.needed
  const store = yield* Store
  const user = access.user
  const now = yield* Clock.currentTimeMillis
  const key = `email-change:${user.id}`
  if ((yield* store.rateEvents.since(key, iso(now - 3600_000))).length >= EMAIL_CHANGES_PER_HOUR) {
    return yield* invalid("email", "was asked for too often: try again in an hour")
  }
  const holder = yield* store.users.byEmail(address)
  if (holder !== undefined) return yield* invalid("email", holder.id === user.id ? "is already your address" : "can't be used")
  yield* store.rateEvents.record(key, iso(now))
  yield* store.emailChanges.insert({ user_id: user.id, new_email: address, created_at: iso(now), expires_at: iso(now + EMAIL_CHANGE_TTL_MS) })
  const t = mailTranslator(user)
  const mail = { recipient_user_id: user.id, path: null, group_id: null, actor_id: null, created_at: iso(now) }
  // the link is made when the message is sent (people.ts mintSecrets): no secret waits in the outbox
  yield* store.mail.enqueue({ ...mail, kind: "email_change", recipient_email: address, subject: t("mail.emailChangeSubject"), body: t("mail.emailChangeBody", { email: address }) })
  if (user.email !== null) {
    yield* store.mail.enqueue({ ...mail, kind: "email_change_notice", recipient_email: user.email, subject: t("mail.emailChangeNoticeSubject"), body: t("mail.emailChangeNoticeBody", { email: address }) })
  }
})

/**
 * **Change e-mail address** (decisions §12): a link valid 24 hours goes to the new address and the present one is
 * told; nothing changes until the link is used (`confirmEmailChange`).
 */
export const requestEmailChange = Effect.fnUntraced(function*(access: Access, email: string): Effect.fn.Return<void, Invalid | Forbidden, Store> {
  const address = normaliseEmail(email)
  if (!isEmail(address)) return yield* invalid("email", "is not a valid e-mail address")
  const store = yield* Store
  return yield* store.transaction(OwnAccount.check([access], () => forbidden("Only you can change your address"))(askingForNewAddress(access, address)))
})

/** What a change link shows before it is used: the new address, or undefined (unknown, used, expired). */
export const showEmailChange = Effect.fnUntraced(function*(token: string): Effect.fn.Return<string | undefined, never, Store> {
  const store = yield* Store
  const change = yield* store.emailChanges.byTokenHash(sha256(token))
  const now = yield* Clock.currentTimeMillis
  return change === undefined || change.used_at !== null || Date.parse(change.expires_at) <= now ? undefined : change.new_email
})

/** The link of a change opened and confirmed: the account's address is the new one (the link is the credential, once). */
export const confirmEmailChange = Effect.fnUntraced(function*(token: string): Effect.fn.Return<string | undefined, never, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    yield* store.lock({ key: `email-change:${sha256(token)}` })
    const change = yield* store.emailChanges.byTokenHash(sha256(token))
    const now = yield* Clock.currentTimeMillis
    if (change === undefined || change.used_at !== null || Date.parse(change.expires_at) <= now) return undefined
    const user = yield* store.users.byId(change.user_id)
    const holder = yield* store.users.byEmail(change.new_email)
    // taken meanwhile, or the account is gone: the link changes nothing
    if (user === undefined || user.deactivated_at !== null || (holder !== undefined && holder.id !== user.id)) return undefined
    yield* store.users.update(user.id, { email: change.new_email, updated_at: iso(now) })
    yield* store.emailChanges.markUsed(change.id, iso(now))
    return change.new_email
  }))
})
