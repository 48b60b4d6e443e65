/**
 * Signing in with an identity provider (decisions §10), whatever the provider: the person an identity names
 * (by identity, else by a verified address, else a new account), the memberships its groups claim makes or
 * ends, an invitation accepted on the way, and a session. Knows nothing of OpenID (ports/identity.ts).
 */
import { Effect } from "effect"
import type { Group, User } from "../domain/records.js"
import { forbidden, type Forbidden } from "../errors.js"
import type { ExternalIdentity } from "../ports/identity.js"
import { Store } from "../ports/store.js"
import { hashApiKey, newApiKey } from "../rules/keys.js"
import { CLAIMED_GROUPS_MAX, identityEmail, identityName, planClaimedGroups, verifiedEmail } from "../rules/identities.js"
import { giveBallot } from "./ballots.js"
import { nowIso } from "./common.js"
import { admitMember, revokeMembership } from "./memberships.js"
import { landingOf, showInvitation, startSession } from "./people.js"

export const DEACTIVATED = "This account has been deactivated: ask an administrator of this server"

/** The account an identity names, linked or made on its first sign-in. Call inside the transaction. */
const accountOf = Effect.fnUntraced(function*(identity: ExternalIdentity): Effect.fn.Return<User, never, Store> {
  const store = yield* Store
  const known = yield* store.users.byIdentity(identity.provider, identity.uid)
  if (known !== undefined) return known
  const email = verifiedEmail(identity)
  const name = identityName(identity)
  const holder = email === null ? undefined : yield* store.users.byEmail(email)
  if (holder !== undefined) {
    yield* store.users.addIdentity({ user_id: holder.id, identity_type: identity.provider, uid: identity.uid, email, name })
    yield* store.users.claim(holder.id)
    // an invited person who had no name yet takes the provider's
    if (holder.name === null && name !== null) yield* store.users.update(holder.id, { name, updated_at: yield* nowIso })
    return (yield* store.users.byId(holder.id))!
  }
  const now = yield* nowIso
  // an API key nobody knows: the person makes one on their API access page when they want one
  const user = yield* store.users.insert({
    name, username: null, email, country: null, is_admin: false, bot: false, api_key_hash: hashApiKey(newApiKey()), placeholder: false, created_at: now, updated_at: now
  })
  // the identity row keeps what the provider said, even an address it did not verify
  yield* store.users.addIdentity({ user_id: user.id, identity_type: identity.provider, uid: identity.uid, email: identityEmail(identity), name })
  return user
})

/**
 * Memberships follow the groups claim: a listed group's handle makes the person an accepted member; a
 * membership an earlier claim made ends when its group is no longer listed. Call inside the transaction.
 */
const followClaimedGroups = Effect.fnUntraced(function*(user: User, provider: string, values: ReadonlyArray<string>) {
  const store = yield* Store
  const handles = [...new Set(values.map((v) => v.trim()).filter((v) => v !== ""))].slice(0, CLAIMED_GROUPS_MAX)
  const claimed: Array<Group> = []
  for (const handle of handles) {
    const group = yield* store.groups.byHandle(handle)
    if (group !== undefined && group.handle === handle) claimed.push(group)
  }
  const plan = planClaimedGroups(claimed, yield* store.memberships.activeForUser(user.id), yield* store.grantedMemberships.activeOf(user.id, provider))
  const now = yield* nowIso
  for (const group of plan.join) yield* store.grantedMemberships.record((yield* admitMember(group, user)).id, provider)
  for (const m of plan.accept) yield* store.memberships.accept(m.id, now)
  for (const id of plan.leave) {
    const m = (yield* store.memberships.byId(id))!
    yield* revokeMembership((yield* store.groups.byId(m.group_id))!, m, null)
  }
})

/**
 * An invitation the person opened before signing in with the provider, accepted as the account the provider
 * named: the invitee's own, or an invitation to an address that had no account yet (the token decides: the
 * group membership, or the thread's guest access and the poll's ballots, go to the provider's account). Another
 * existing account's invitation is left for its page to explain. Returns where to go.
 */
const redeemInvitation = Effect.fnUntraced(function*(token: string, user: User): Effect.fn.Return<string | undefined, never, Store> {
  const store = yield* Store
  const view = yield* showInvitation(token)
  if (view === undefined || view.state !== "valid") return undefined
  const own = view.invitee.id === user.id
  if (!own && view.invitee.name !== null) return undefined
  const now = yield* nowIso
  if (view.invitation.kind === "group" && view.group !== undefined) {
    const pending = yield* store.memberships.activeFor(view.group.id, view.invitee.id)
    if (pending === undefined) return undefined
    if (own) {
      if (pending.accepted_at === null) yield* store.memberships.accept(pending.id, now)
    } else {
      // the placeholder's pending membership gives way to the account that redeemed its token
      yield* revokeMembership(view.group, pending, null)
      const mine = yield* store.memberships.activeFor(view.group.id, user.id)
      if (mine === undefined) yield* admitMember(view.group, user, { inviterId: pending.inviter_id, admin: pending.admin })
      else if (mine.accepted_at === null) yield* store.memberships.accept(mine.id, now)
    }
  } else if (!own && view.topic !== undefined) {
    // a guest's invitation: the thread, and the open polls' ballots the address was given
    yield* store.readers.upsert({ topic_id: view.topic.id, user_id: user.id, inviter_id: view.invitation.inviter_id, guest: true, created_at: now })
    for (const poll of yield* store.polls.ofTopics([view.topic.id])) {
      const held = yield* store.stances.latestFor(poll.id, view.invitee.id)
      if (held !== undefined && held.revoked_at === null && poll.closed_at === null) yield* giveBallot(poll, user.id, held.inviter_id)
    }
  }
  yield* store.invitations.markUsed(view.invitation.id, now)
  return yield* landingOf(view)
})

/**
 * Signs in with an identity a provider vouched for: its account (a deactivated one is refused, and nothing is
 * written), its claimed groups, the invitation it came from (`invitation`, a token), and a new session.
 */
export const signInWithIdentity = Effect.fnUntraced(function*(
  identity: ExternalIdentity,
  invitation?: string
): Effect.fn.Return<{ readonly user: User; readonly session: string; readonly landing: string | undefined }, Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const user = yield* accountOf(identity)
    if (user.deactivated_at !== null) return yield* Effect.fail(forbidden(DEACTIVATED))
    if (identity.groups !== undefined) yield* followClaimedGroups(user, identity.provider, identity.groups)
    const landing = invitation === undefined ? undefined : yield* redeemInvitation(invitation, user)
    return { user, session: yield* startSession(user.id), landing }
  }))
})
