/**
 * Instance administration of user accounts: the b3 Server API and `convene users …` both call these.
 * Their caller is the operator (server secret or shell access), so there is no per-user permission here.
 */
import { Effect } from "effect"
import type { Identity, Page, User } from "../domain/records.js"
import { type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import { plainLineErrors } from "../rules/values.js"
import { isEmail, isUsername, normaliseEmail } from "../rules/users.js"
import { nowIso, type Paged, readLocked } from "./common.js"
import { endSignIns } from "./people.js"
import { hashApiKey, newApiKey } from "../rules/keys.js"

export type UserRef = { readonly id: number } | { readonly identity_type: string; readonly uid: string }

export interface UserWithIdentities {
  readonly user: User
  readonly identities: ReadonlyArray<Identity>
}

/**
 * The operator's view of an account (spec: "Server user account"): the b3 API's user and the CLI's,
 * every field always present.
 */
export const accountJson = (user: User, identities: ReadonlyArray<Identity>) => ({
  id: user.id,
  name: user.name,
  username: user.username,
  email: user.email,
  is_admin: user.is_admin,
  active: user.deactivated_at === null,
  deactivated_at: user.deactivated_at,
  identities: identities.map((i) => ({ id: i.id, identity_type: i.identity_type, uid: i.uid, email: i.email, name: i.name }))
})

export interface NewUser {
  readonly email: string
  readonly name?: string | null
  readonly username?: string | null
  readonly country?: string | null
  readonly is_admin?: boolean
  readonly bot?: boolean
  readonly identity?: { readonly identity_type: string; readonly uid: string }
}

export interface UserPatch {
  readonly name?: string | null
  readonly username?: string | null
  readonly email?: string | null
  readonly is_admin?: boolean
}

const describe = (ref: UserRef) => ("id" in ref ? `User ${ref.id} not found` : `Identity ${ref.identity_type}/${ref.uid} not found`)

export const findUser = (ref: UserRef): Effect.Effect<User, NotFound, Store> =>
  Effect.flatMap(Store, (store) =>
    Effect.flatMap(
      // locked in a write: an operator's deactivate, reactivate and delete of one person run in turn
      readLocked("users", "id" in ref ? store.users.byId(ref.id) : store.users.byIdentity(ref.identity_type, ref.uid), store.users.byId),
      (u) => (u === undefined ? Effect.fail(notFound(describe(ref))) : Effect.succeed(u))
    ))

const withIdentities = (user: User) =>
  Effect.flatMap(Store, (store) => Effect.map(store.users.identitiesOf([user.id]), (identities) => ({ user, identities })))

/** Checks e-mail and username: format, then uniqueness against other users. */
const checkUnique = Effect.fnUntraced(function*(patch: { email?: string | null; username?: string | null; name?: string | null }, selfId?: number): Effect.fn.Return<void, Invalid, Store> {
  const store = yield* Store
  const nameProblem = plainLineErrors(patch.name, false)
  if (nameProblem !== null) return yield* invalid("name", nameProblem)
  if (patch.email != null) {
    if (!isEmail(patch.email)) return yield* invalid("email", "is invalid")
    const other = yield* store.users.byEmail(patch.email)
    if (other !== undefined && other.id !== selfId) return yield* invalid("email", "has already been taken")
  }
  if (patch.username != null) {
    if (!isUsername(patch.username)) return yield* invalid("username", "may contain only letters, digits, '.', '_' and '-' (at most 64)")
    const other = yield* store.users.byUsername(patch.username)
    if (other !== undefined && other.id !== selfId) return yield* invalid("username", "has already been taken")
  }
})

/** Creates a user and returns the plaintext API key, which is shown this once and never stored. */
export const createUser = Effect.fnUntraced(function*(input: NewUser): Effect.fn.Return<{ user: User; apiKey: string }, Invalid, Store> {
  const store = yield* Store
  const email = normaliseEmail(input.email)
  return yield* store.transaction(Effect.gen(function*() {
    yield* checkUnique({ email, username: input.username ?? null, name: input.name ?? null })
    if (input.identity !== undefined) {
      const taken = yield* store.users.byIdentity(input.identity.identity_type, input.identity.uid)
      if (taken !== undefined) return yield* invalid("identity", "has already been taken")
    }
    const now = yield* nowIso
    const apiKey = newApiKey()
    const user = yield* store.users.insert({
      name: input.name ?? null,
      username: input.username ?? null,
      email,
      country: input.country ?? null,
      is_admin: input.is_admin ?? false,
      bot: input.bot ?? false,
      api_key_hash: hashApiKey(apiKey),
      // made by an operator (CLI, b3, embedding): an invitation to it never signs anyone in
      placeholder: false,
      created_at: now,
      updated_at: now
    })
    if (input.identity !== undefined) {
      yield* store.users.addIdentity({ user_id: user.id, ...input.identity, email, name: user.name })
    }
    return { user, apiKey }
  }))
})

export const listUsers = Effect.fnUntraced(function*(
  filter: { is_admin?: boolean },
  page: Page
): Effect.fn.Return<Paged<UserWithIdentities>, never, Store> {
  const store = yield* Store
  const users = yield* store.users.list(filter, page)
  const total = yield* store.users.count(filter)
  const identities = yield* store.users.identitiesOf(users.map((u) => u.id))
  return {
    total,
    records: users.map((user) => ({ user, identities: identities.filter((i) => i.user_id === user.id) }))
  }
})

export const showUser = (ref: UserRef) => Effect.flatMap(findUser(ref), withIdentities)

export const updateUser = Effect.fnUntraced(function*(ref: UserRef, patch: UserPatch): Effect.fn.Return<UserWithIdentities, NotFound | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const user = yield* findUser(ref)
    const email = patch.email == null ? patch.email : normaliseEmail(patch.email)
    if (patch.email === null) return yield* invalid("email", "can't be blank")
    yield* checkUnique({ email, username: patch.username, name: patch.name }, user.id)
    yield* store.users.update(user.id, { ...patch, email, updated_at: yield* nowIso })
    return yield* withIdentities((yield* store.users.byId(user.id))!)
  }))
})

/** Deactivation revokes the user's memberships at one instant, so reactivation can restore exactly those. */
export const deactivateUser = Effect.fnUntraced(function*(ref: UserRef): Effect.fn.Return<UserWithIdentities, NotFound, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const user = yield* findUser(ref)
    if (user.deactivated_at !== null) return yield* notFound(`User ${user.id} is not active`)
    const now = yield* nowIso
    yield* store.memberships.revokeAllOfUser(user.id, now, user.id)
    yield* endSignIns(user.id)
    yield* store.users.update(user.id, { deactivated_at: now, deactivator_id: user.id, updated_at: now })
    return yield* withIdentities((yield* store.users.byId(user.id))!)
  }))
})

export const reactivateUser = Effect.fnUntraced(function*(ref: UserRef): Effect.fn.Return<UserWithIdentities, NotFound, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const user = yield* findUser(ref)
    if (user.deactivated_at === null) return yield* notFound(`User ${user.id} is not deactivated`)
    yield* store.memberships.restoreRevokedAt(user.id, user.deactivated_at)
    yield* store.users.update(user.id, { deactivated_at: null, deactivator_id: null, updated_at: yield* nowIso })
    return yield* withIdentities((yield* store.users.byId(user.id))!)
  }))
})

/**
 * Removes identifying data and keeps contributed content (decisions.md §1): name, username, e-mail
 * (a SHA-256 of it is kept), country, identities, admin flag; the API key is rotated, memberships revoked.
 */
export const redactUser = Effect.fnUntraced(function*(ref: UserRef): Effect.fn.Return<User, NotFound, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const user = yield* findUser(ref)
    const now = yield* nowIso
    yield* store.memberships.revokeAllOfUser(user.id, user.deactivated_at ?? now, user.id)
    yield* store.users.deleteIdentities(user.id)
    yield* endSignIns(user.id)
    yield* store.users.setApiKeyHash(user.id, hashApiKey(newApiKey()))
    yield* store.users.update(user.id, {
      name: null,
      username: null,
      email: null,
      email_sha256: user.email === null ? user.email_sha256 : hashApiKey(user.email),
      country: null,
      is_admin: false,
      deactivated_at: user.deactivated_at ?? now,
      deactivator_id: user.deactivator_id ?? user.id,
      redacted_at: user.redacted_at ?? now,
      updated_at: now
    })
    return (yield* store.users.byId(user.id))!
  }))
})

/** Permanently deletes the user and the records they authored (hard delete, one transaction). */
export const deleteUser = Effect.fnUntraced(function*(ref: UserRef): Effect.fn.Return<void, NotFound, Store> {
  const store = yield* Store
  yield* store.transaction(Effect.gen(function*() {
    const user = yield* findUser(ref)
    yield* store.users.delete(user.id)
  }))
})

/** Issues a new API key; the old one stops working at once. */
export const rotateApiKey = Effect.fnUntraced(function*(ref: UserRef): Effect.fn.Return<{ user: User; apiKey: string }, NotFound, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const user = yield* findUser(ref)
    const apiKey = newApiKey()
    yield* store.users.setApiKeyHash(user.id, hashApiKey(apiKey))
    return { user, apiKey }
  }))
})
