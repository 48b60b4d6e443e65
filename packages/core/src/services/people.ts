/**
 * People (decisions §5): invitations that can be accepted, sign-in by a 6-digit code or a one-time link,
 * and sessions. Every secret is random (192 bits; codes 6 digits), stored as its SHA-256 only, compared
 * in constant time, and made when the message that carries it is sent (mintSecrets), so none is ever at
 * rest in plain text. The pages bind these; an embedder gets them unchanged.
 */
import { Clock, Context, Effect } from "effect"
import { randomBytes, randomInt } from "node:crypto"
import type { CatchUp, Group, Id, MailMessage, Topic, User } from "../domain/records.js"
import { type Forbidden, forbidden, Invalid, invalid, type TooManyRequests, tooManyRequests } from "../errors.js"
import type { InvitationKind, InvitationToken } from "../ports/people.js"
import { Store } from "../ports/store.js"
import {
  INVITATION_TTL_DAYS,
  codeUsable,
  invitationState,
  type InvitationState,
  LOGIN_CODE_TTL_MS,
  REINVITE_LIMIT,
  type RateLimit,
  rateLimitWait,
  SESSION_MAX_MS,
  SESSION_TOUCH_MS,
  SESSION_TTL_MS,
  SIGN_IN_LIMITS,
  WRONG_CODES
} from "../rules/people.js"
import { plainLineErrors } from "../rules/values.js"
import { isNotification, type SendableMail } from "../rules/mail.js"
import { isEmail, normaliseEmail, profileErrors, type ProfileInput } from "../rules/users.js"
import type { Translate } from "../messages/index.js"
import { digestsEqual, hashApiKey as sha256 } from "../rules/keys.js"

const iso = (ms: number) => new Date(ms).toISOString()
const newSecret = () => randomBytes(24).toString("base64url")

// Invitations


/**
 * How many days an invitation stays valid (decisions §5: 30, `INVITATION_TTL_DAYS`). A Context.Reference:
 * 30 unless the server, the command line or an embedder provides another value.
 */
export class InvitationTtlDays extends Context.Reference<InvitationTtlDays>()("@convene/core/InvitationTtlDays", {
  defaultValue: () => INVITATION_TTL_DAYS
}) {}

export interface NewInvitation {
  readonly kind: InvitationKind
  readonly user: User
  readonly inviter: User | null
  readonly group: Group | undefined
  readonly topic?: Topic
  readonly message?: string | null
}

/**
 * Records an invitation (its secret is made when the mail is sent); an earlier unused one to the same place
 * stops working, so inviting again sends a fresh token. Call inside the writing transaction.
 */
export const recordInvitation = Effect.fnUntraced(function*(i: NewInvitation): Effect.fn.Return<InvitationToken, never, Store> {
  const store = yield* Store
  const now = yield* Clock.currentTimeMillis
  const placeId = i.kind === "group" ? i.group!.id : i.topic!.id
  yield* store.invitations.supersede(i.user.id, i.kind, placeId, iso(now))
  return yield* store.invitations.insert({
    // a placeholder nobody knows, replaced when the message is sent
    token_hash: sha256(newSecret()),
    kind: i.kind,
    user_id: i.user.id,
    inviter_id: i.inviter?.id ?? null,
    group_id: i.group?.id ?? null,
    topic_id: i.topic?.id ?? null,
    message: i.message ?? null,
    created_at: iso(now),
    expires_at: iso(now + (yield* InvitationTtlDays) * 86_400_000)
  })
})

/**
 * The secrets a message carries, made now (at send time): an invitation's link, or a sign-in code and its
 * link. Returns the message as it is to be sent. Call inside the claiming transaction.
 */
export const mintSecrets = Effect.fnUntraced(function*(m: MailMessage, t: Translate, replyHost?: string): Effect.fn.Return<SendableMail, never, Store> {
  const store = yield* Store
  if (isNotification(m.kind) && m.recipient_user_id !== null) {
    const now = iso(yield* Clock.currentTimeMillis)
    let sendable: SendableMail = m
    if (m.group_id !== null) {
      const token = newSecret()
      yield* store.mutes.insertToken({ token_hash: sha256(token), user_id: m.recipient_user_id, group_id: m.group_id, created_at: now })
      sendable = { ...sendable, unsubscribePath: `/unsubscribe/${token}` }
    }
    // a reply to a thread's notification comes back as a comment (decisions §11): the address is the credential.
    // Only a discussion's thread takes comments: a standalone poll's mail gets no reply address
    const topic = replyHost === undefined || m.topic_id === null ? undefined : yield* store.topics.byId(m.topic_id)
    if (replyHost !== undefined && topic?.topicable_type === "Discussion") {
      const token = newSecret()
      yield* store.replyTokens.insert({ token_hash: sha256(token), user_id: m.recipient_user_id, topic_id: topic.id, comment_id: m.comment_id, created_at: now })
      sendable = { ...sendable, replyTo: `reply+${token}@${replyHost}` }
    }
    return sendable
  }
  if (m.invitation_id !== null) {
    const token = newSecret()
    yield* store.invitations.rehash(m.invitation_id, sha256(token))
    return { ...m, path: `/invitations/${token}` }
  }
  if (m.kind === "email_change" && m.recipient_user_id !== null) {
    const change = yield* store.emailChanges.awaitingLink(m.recipient_user_id)
    // a newer request superseded this one: its message goes without a link
    if (change === undefined || change.new_email !== m.recipient_email) return m
    const token = newSecret()
    yield* store.emailChanges.setTokenHash(change.id, sha256(token))
    return { ...m, path: `/profile/email/${token}` }
  }
  if (m.kind === "sign_in" && m.recipient_user_id !== null) {
    const now = yield* Clock.currentTimeMillis
    const code = String(randomInt(100_000, 1_000_000))
    const link = newSecret()
    const salt = newSecret()
    // a new code ends the person's older codes and links: only the newest mail signs in
    yield* store.loginCodes.endLive(m.recipient_user_id, iso(now))
    yield* store.loginCodes.insert({
      user_id: m.recipient_user_id,
      code_salt: salt,
      code_hash: sha256(salt + code),
      link_hash: sha256(link),
      created_at: iso(now),
      expires_at: iso(now + LOGIN_CODE_TTL_MS)
    })
    return {
      ...m,
      subject: t("mail.signInSubject", { code }),
      body: t("mail.signInBody", { code }),
      path: `/sign-in/link/${link}`
    }
  }
  return m
})

export interface InvitationView {
  readonly state: InvitationState
  readonly invitation: InvitationToken
  readonly invitee: User
  readonly inviter: User | undefined
  readonly group: Group | undefined
  readonly topic: Topic | undefined
}

/**
 * Where an accepted invitation takes the person (decisions §9, amended): where they were invited, a new member to
 * the group's page, a thread or poll guest to the thread or poll; the home page when that is gone. Never the API
 * access page (reachable from the profile).
 */
export const landingOf = Effect.fnUntraced(function*(view: InvitationView): Effect.fn.Return<string, never, Store> {
  const store = yield* Store
  const topic = view.topic
  if (view.invitation.kind === "group") return view.group === undefined ? "/" : `/g/${view.group.key}`
  if (topic === undefined || topic.topicable_id === null) return "/"
  if (topic.topicable_type === "Discussion") {
    const discussion = yield* store.discussions.byId(topic.topicable_id)
    return discussion === undefined ? "/" : `/d/${discussion.key}`
  }
  const poll = yield* store.polls.byId(topic.topicable_id)
  return poll === undefined ? "/" : `/p/${poll.key}`
})

/** What an invitation link shows, or undefined for a token nobody issued. */
export const showInvitation = Effect.fnUntraced(function*(token: string): Effect.fn.Return<InvitationView | undefined, never, Store> {
  const store = yield* Store
  const invitation = yield* store.invitations.byHash(sha256(token))
  if (invitation === undefined) return undefined
  const now = yield* Clock.currentTimeMillis
  const invitee = yield* store.users.byId(invitation.user_id)
  if (invitee === undefined) return undefined
  return {
    state: invitee.deactivated_at !== null ? "expired" : invitationState(invitation, now),
    invitation,
    invitee,
    inviter: invitation.inviter_id === null ? undefined : yield* store.users.byId(invitation.inviter_id),
    group: invitation.group_id === null ? undefined : yield* store.groups.byId(invitation.group_id),
    topic: invitation.topic_id === null ? undefined : yield* store.topics.byId(invitation.topic_id)
  }
})

export type Unusable = { readonly _tag: "Unusable"; readonly state: InvitationState | "unknown" }

/**
 * Whose an invitation is, beside who opened it (decisions §5, amended): an invitation addressed to an existing
 * account (anything but an invitation made it, or someone has used it: signed in, joined, linked an identity) is
 * redeemed only by that account, signed in; one addressed to a placeholder an invitation made signs the new person in.
 */
export type InvitationHolder =
  /** the invitee is a new person: accepting signs them in (and signs out whoever else was) */
  | { readonly _tag: "NewPerson" }
  /** an existing account, and nobody signed in: sign in as it first */
  | { readonly _tag: "SignInFirst" }
  /** an existing account, and someone else is signed in: switch or decline */
  | { readonly _tag: "WrongPerson" }
  /** the invitee, signed in: accepting redeems it */
  | { readonly _tag: "Invitee" }

export const invitationHolder = (invitee: User, signedIn: User | undefined): InvitationHolder =>
  invitee.placeholder
    ? { _tag: "NewPerson" }
    : signedIn === undefined
    ? { _tag: "SignInFirst" }
    : signedIn.id !== invitee.id
    ? { _tag: "WrongPerson" }
    : { _tag: "Invitee" }

/**
 * Accepts an invitation: once, before it expires. A group invitation makes the pending membership accepted;
 * a thread or poll guest was let in when invited. A new person gives their name here and is signed in (a new
 * session, returned); an existing account must be the one signed in (`invitationHolder`), and stays signed in.
 */
export const acceptInvitation = Effect.fnUntraced(function*(
  token: string,
  name: string | undefined,
  signedIn?: User
): Effect.fn.Return<
  { readonly user: User; readonly view: InvitationView; readonly session: string | undefined; readonly landing: string },
  Unusable | Invalid | InvitationHolder,
  Store
> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    // one link used twice at once (a double click, two servers): the second sees it used
    yield* store.lock({ key: `invitation:${sha256(token)}` })
    const view = yield* showInvitation(token)
    if (view === undefined) return yield* Effect.fail<Unusable>({ _tag: "Unusable", state: "unknown" })
    if (view.state !== "valid") return yield* Effect.fail<Unusable>({ _tag: "Unusable", state: view.state })
    const holder = invitationHolder(view.invitee, signedIn)
    if (holder._tag === "SignInFirst" || holder._tag === "WrongPerson") return yield* Effect.fail(holder)
    const now = iso(yield* Clock.currentTimeMillis)
    if (holder._tag === "NewPerson") {
      const nameProblem = plainLineErrors(name, true)
      if (nameProblem !== null) return yield* invalid("name", nameProblem)
      yield* store.users.update(view.invitee.id, { name: name!.trim().slice(0, 100), updated_at: now })
    }
    if (view.invitation.kind === "group" && view.group !== undefined) {
      const membership = yield* store.memberships.activeFor(view.group.id, view.invitee.id)
      // the membership was revoked since: the invitation went with it, and signs nobody in
      if (membership === undefined) return yield* Effect.fail<Unusable>({ _tag: "Unusable", state: "expired" })
      if (membership.accepted_at === null) yield* store.memberships.accept(membership.id, now)
    }
    yield* store.invitations.markUsed(view.invitation.id, now)
    const user = (yield* store.users.byId(view.invitee.id))!
    return { user, view, session: holder._tag === "NewPerson" ? yield* startSession(user.id) : undefined, landing: yield* landingOf(view) }
  }))
})

// Unsubscribing

/** The group an unsubscribe link stops, or undefined for a token nobody issued. */
export const showUnsubscribe = Effect.fnUntraced(function*(token: string): Effect.fn.Return<{ readonly group: Group; readonly muted: boolean } | undefined, never, Store> {
  const store = yield* Store
  const found = yield* store.mutes.byTokenHash(sha256(token))
  if (found === undefined) return undefined
  const group = yield* store.groups.byId(found.group_id)
  if (group === undefined) return undefined
  return { group, muted: yield* store.mutes.isMuted(found.user_id, found.group_id) }
})

/** Stops a group's notification mail to the person the link was sent to (no sign-in: the link is the credential). */
export const unsubscribe = Effect.fnUntraced(function*(token: string): Effect.fn.Return<Group | undefined, never, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const found = yield* store.mutes.byTokenHash(sha256(token))
    if (found === undefined) return undefined
    yield* store.mutes.mute(found.user_id, found.group_id, iso(yield* Clock.currentTimeMillis))
    return yield* store.groups.byId(found.group_id)
  }))
})

// Rate limits

const limited = Effect.fnUntraced(function*(key: string, rule: RateLimit) {
  const store = yield* Store
  // servers side by side count one address's attempts in turn
  yield* store.lock({ key })
  const now = yield* Clock.currentTimeMillis
  const times = (yield* store.rateEvents.since(key, iso(now - rule.windowMs))).map((t) => Date.parse(t))
  return rateLimitWait(times, rule, now)
})

const reinviteKey = (membershipId: Id) => `invitation-sent:${membershipId}`

/** Notes that a membership's invitation was sent (inviting again waits a day from here). */
export const noteInvitationSent = Effect.fnUntraced(function*(membershipId: Id): Effect.fn.Return<void, never, Store> {
  const store = yield* Store
  yield* store.rateEvents.record(reinviteKey(membershipId), iso(yield* Clock.currentTimeMillis))
})

/** Whether a pending membership's invitation may be sent again now; notes the sending when it may. */
export const reinviteAllowed = Effect.fnUntraced(function*(membershipId: Id): Effect.fn.Return<boolean, never, Store> {
  if ((yield* limited(reinviteKey(membershipId), REINVITE_LIMIT)) > 0) return false
  yield* noteInvitationSent(membershipId)
  return true
})

// Sign-in

/**
 * Asks for a sign-in code for an address. The answer is the same whether or not the address has an account
 * (a code is mailed only when it does); 5 requests an hour per address and 30 per IP address, then 429.
 */
export const requestSignIn = Effect.fnUntraced(function*(email: string, ip: string): Effect.fn.Return<void, Invalid | TooManyRequests, Store> {
  const store = yield* Store
  const address = normaliseEmail(email)
  if (!isEmail(address)) return yield* invalid("email", "is not an e-mail address")
  return yield* store.transaction(Effect.gen(function*() {
    const wait = Math.max(
      yield* limited(`sign-in:address:${address}`, SIGN_IN_LIMITS.perAddress),
      yield* limited(`sign-in:ip:${ip}`, SIGN_IN_LIMITS.perIp)
    )
    if (wait > 0) return yield* tooManyRequests("Too many sign-in requests: wait a while and try again", wait)
    const now = yield* Clock.currentTimeMillis
    yield* store.rateEvents.record(`sign-in:address:${address}`, iso(now))
    yield* store.rateEvents.record(`sign-in:ip:${ip}`, iso(now))
    yield* store.rateEvents.prune(iso(now - 86_400_000))
    const user = yield* store.users.byEmail(address)
    if (user === undefined || user.deactivated_at !== null) return
    yield* store.mail.enqueue({
      kind: "sign_in",
      recipient_user_id: user.id,
      recipient_email: address,
      // the code and link are made when the message is sent (mintSecrets)
      subject: "Your convene sign-in code",
      body: "",
      path: null,
      group_id: null,
      actor_id: null,
      created_at: iso(now)
    })
  }))
})

const WRONG_CODE = "That code is wrong or has expired: ask for a new one"

/**
 * Signs in with the address and its 6-digit code. Every wrong code is counted against the address (and the
 * client), whatever the address is: the same answers in the same order for an account and for no account
 * (WRONG_CODES: 403 until the 10th since the address's latest code request, which is 429; 20 a day).
 */
export const signInWithCode = Effect.fnUntraced(function*(email: string, code: string, client: string): Effect.fn.Return<{ user: User; session: string }, Forbidden | TooManyRequests, Store> {
  const store = yield* Store
  const address = normaliseEmail(email)
  const wrongKey = `sign-in:wrong:${address}`
  const clientKey = `sign-in:wrong-client:${client}`
  // the transaction answers instead of failing, so that a wrong guess is counted (a failure rolls back)
  const outcome = yield* store.transaction(Effect.gen(function*() {
    // first: `limited` locks the address's count, so one attempt per address is checked at a time
    const dayWait = yield* limited(wrongKey, WRONG_CODES.perAddress)
    const clientWait = yield* limited(clientKey, WRONG_CODES.perClient)
    const now = yield* Clock.currentTimeMillis
    const requested = yield* store.rateEvents.since(`sign-in:address:${address}`, iso(now - LOGIN_CODE_TTL_MS))
    const sinceCode = requested.length === 0 ? iso(now - LOGIN_CODE_TTL_MS) : requested[requested.length - 1]!
    const wrongSinceCode = (yield* store.rateEvents.since(wrongKey, sinceCode)).length
    if (dayWait > 0 || clientWait > 0) return { _tag: "limited", wait: Math.max(dayWait, clientWait) } as const
    if (wrongSinceCode >= WRONG_CODES.perCode) return { _tag: "dead" } as const
    const user = yield* store.users.byEmail(address)
    const live = user === undefined || user.deactivated_at !== null ? undefined : yield* store.loginCodes.latestLive(user.id, iso(now))
    // the comparison is made whether or not there is a code to compare with (against a salt of no code)
    const candidate = sha256((live?.code_salt ?? "") + code.trim())
    const right = live !== undefined && /^[0-9]{6}$/.test(code.trim()) && digestsEqual(candidate, live.code_hash)
    if (!right || user === undefined) {
      yield* store.rateEvents.record(wrongKey, iso(now))
      yield* store.rateEvents.record(clientKey, iso(now))
      return wrongSinceCode + 1 >= WRONG_CODES.perCode ? { _tag: "dead" } as const : { _tag: "wrong" } as const
    }
    // this code is used, and every other live code and link of the person ends with it
    yield* store.loginCodes.endLive(user.id, iso(now))
    return { _tag: "ok", user, session: yield* startSession(user.id) } as const
  }))
  switch (outcome._tag) {
    case "ok":
      return { user: outcome.user, session: outcome.session }
    case "dead":
      return yield* tooManyRequests("Too many wrong codes: ask for a new one", LOGIN_CODE_TTL_MS)
    case "limited":
      return yield* tooManyRequests("Too many wrong codes: use the link in your latest sign-in e-mail, or try again later", outcome.wait)
    case "wrong":
      return yield* forbidden(WRONG_CODE)
  }
})

/** Signs in with the one-time link of a sign-in mail. */
export const signInWithLink = Effect.fnUntraced(function*(link: string): Effect.fn.Return<{ user: User; session: string }, Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    yield* store.lock({ key: `sign-in-link:${sha256(link)}` })
    const now = yield* Clock.currentTimeMillis
    const code = yield* store.loginCodes.byLinkHash(sha256(link))
    if (code === undefined || !codeUsable(code, now)) return yield* forbidden("That sign-in link was used or has expired: ask for a new one")
    const user = yield* store.users.byId(code.user_id)
    if (user === undefined || user.deactivated_at !== null) return yield* forbidden("That sign-in link was used or has expired: ask for a new one")
    yield* store.loginCodes.endLive(user.id, iso(now))
    return { user, session: yield* startSession(user.id) }
  }))
})

// Sessions

/** A new session for a person; returns its secret (the cookie's value). Call inside a transaction. */
export const startSession = Effect.fnUntraced(function*(userId: Id): Effect.fn.Return<string, never, Store> {
  const store = yield* Store
  const now = yield* Clock.currentTimeMillis
  const token = newSecret()
  yield* store.sessions.insert({ token_hash: sha256(token), user_id: userId, created_at: iso(now), last_seen_at: iso(now), expires_at: iso(now + SESSION_TTL_MS) })
  yield* store.users.claim(userId)
  return token
})

/**
 * The person a session cookie belongs to, or undefined (unknown, expired, deactivated). 30 days, sliding (the
 * expiry moves on at most once an hour), and never past 90 days from the sign-in.
 */
export const sessionUser = Effect.fnUntraced(function*(token: string | undefined): Effect.fn.Return<User | undefined, never, Store> {
  if (token === undefined || token === "") return undefined
  const store = yield* Store
  const hash = sha256(token)
  const session = yield* store.sessions.byHash(hash)
  const now = yield* Clock.currentTimeMillis
  if (session === undefined || Date.parse(session.expires_at) <= now) return undefined
  const cap = Date.parse(session.created_at) + SESSION_MAX_MS
  if (cap <= now) return undefined
  const user = yield* store.users.byId(session.user_id)
  if (user === undefined || user.deactivated_at !== null) return undefined
  if (now - Date.parse(session.last_seen_at) > SESSION_TOUCH_MS) {
    yield* store.transaction(store.sessions.touch(session.id, iso(now), iso(Math.min(now + SESSION_TTL_MS, cap))))
  }
  return user
})

/**
 * Ends every way the person is or could be signed in: their sessions, and their live sign-in codes and links.
 * Sign-out, deactivation and redaction call it (inside their transaction, or in one of its own).
 */
export const endSignIns = Effect.fnUntraced(function*(userId: Id): Effect.fn.Return<void, never, Store> {
  const store = yield* Store
  const now = iso(yield* Clock.currentTimeMillis)
  yield* store.transaction(Effect.zipRight(store.sessions.deleteForUser(userId), store.loginCodes.endLive(userId, now)))
})

/** /profile: a person's own name, time zone and language (decisions §9); "" clears a zone or language. */
export const updateProfile = Effect.fnUntraced(function*(user: User, input: ProfileInput): Effect.fn.Return<User, Invalid, Store> {
  const store = yield* Store
  const errors = profileErrors(input)
  if (Object.keys(errors).length > 0) return yield* new Invalid({ errors: Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, [v]])) })
  return yield* store.transaction(Effect.gen(function*() {
    const now = iso(yield* Clock.currentTimeMillis)
    yield* store.users.update(user.id, {
      name: input.name.trim(),
      time_zone: input.time_zone === "" ? null : input.time_zone,
      locale: input.locale === "" ? null : input.locale,
      ...(input.catch_up === undefined ? {} : { catch_up: input.catch_up === "" ? null : input.catch_up as CatchUp }),
      // turned on: the first catch-up covers from now, at the next 06:00
      ...(input.catch_up !== undefined && input.catch_up !== "" && user.catch_up === null ? { catch_up_sent_at: now } : {}),
      updated_at: now
    })
    return (yield* store.users.byId(user.id))!
  }))
})

/**
 * A secret the server keeps for itself (by name), made on first use and shared by every server on the
 * database: the pages' CSRF tokens are bound to their session with it (decisions §5, amended).
 */
export const serverSecret = (name: string): Effect.Effect<string, never, Store> =>
  Effect.flatMap(Store, (store) => store.transaction(store.serverSecrets.get(name, randomBytes(32).toString("base64url"))))
