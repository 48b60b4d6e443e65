import { Clock, Effect } from "effect"
import { type Invalid, invalid } from "../errors.js"
import { emailsErrors } from "../rules/users.js"
import type { Id, Page, User } from "../domain/records.js"
import { makeAccess, type Access } from "../rules/access.js"
import { type Locked, Store } from "../ports/store.js"

/** Current time from Effect's Clock, so tests can drive it with TestClock. */
export const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

/** Loads what the permission rules need to know about the acting user. */
export const loadAccess = (user: User): Effect.Effect<Access, never, Store> =>
  Effect.flatMap(Store, (store) => Effect.map(store.memberships.activeForUser(user.id), (ms) => makeAccess(user, ms)))

export interface Paged<A> {
  readonly records: ReadonlyArray<A>
  readonly total: number
}

export const DEFAULT_PAGE: Page = { limit: 50, offset: 0 }

/** Every address of `field` valid, or a 422 naming the field and the first bad address, before anything is written. */
export const checkEmails = (field: string, emails: ReadonlyArray<string> | undefined): Effect.Effect<void, Invalid> => {
  const error = emailsErrors(emails)
  return error === null ? Effect.void : Effect.fail(invalid(field, error))
}

/**
 * A record read for a write: locked (ports/store.ts `lock`), and read again when that waited for other writers,
 * so that what the write checks is what they left. Outside a transaction, or on SQLite, the one read.
 */
export const readLocked = <A extends { readonly id: Id }>(
  table: Extract<Locked, { table: string }>["table"],
  read: Effect.Effect<A | undefined>,
  byId: (id: Id) => Effect.Effect<A | undefined>
): Effect.Effect<A | undefined, never, Store> =>
  Effect.flatMap(read, (found) =>
    found === undefined
      ? Effect.succeed(undefined)
      : Effect.flatMap(Store, (store) => Effect.flatMap(store.lock({ table, id: found.id }), (locked) => (locked ? byId(found.id) : Effect.succeed(found)))))
