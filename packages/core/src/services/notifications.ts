/**
 * Notifications in the app (decisions §13): what the mail volume sends (services/mail.ts keeps each), counted in the
 * pages' header while not seen, listed newest first with the unseen first, seen once shown.
 */
import { Clock, Effect } from "effect"
import type { Notification, User } from "../domain/records.js"
import { forbidden, type Forbidden } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { isActivePerson } from "../rules/access.js"
import { OwnAccount, type Permit } from "../policies.js"

/** How many a person's list shows. */
export const NOTIFICATIONS_SHOWN = 50

const iso = (ms: number) => new Date(ms).toISOString()

/** The count the header shows: the person's notifications not seen yet (0 for a visitor). */
export const unseenCount = (access: Access): Effect.Effect<number, never, Store> =>
  isActivePerson(access) ? Effect.flatMap(Store, (store) => store.notifications.unseenCount(access.user.id)) : Effect.succeed(0)

export interface NotificationList {
  /** as they were before this showing (seen_at null: new to the person) */
  readonly notifications: ReadonlyArray<Notification>
  readonly actors: ReadonlyArray<User>
}

const showing = Effect.fnUntraced(function*(access: Access): Effect.fn.Return<NotificationList, never, Store | Permit<"OwnAccount">> {
  yield* OwnAccount.needed
  const store = yield* Store
  const notifications = yield* store.notifications.latest(access.user.id, NOTIFICATIONS_SHOWN)
  const unseen = notifications.filter((n) => n.seen_at === null).map((n) => n.id)
  if (unseen.length > 0) yield* store.notifications.markSeen(access.user.id, unseen, iso(yield* Clock.currentTimeMillis))
  const actors = yield* store.users.byIds([...new Set(notifications.flatMap((n) => (n.actor_id === null ? [] : [n.actor_id])))])
  return { notifications, actors }
})

/** `/notifications`: the newest 50, the unseen first; those shown are seen from now on. */
export const showNotifications = (access: Access): Effect.Effect<NotificationList, Forbidden, Store> =>
  Effect.flatMap(Store, (store) => store.transaction(OwnAccount.check([access], () => forbidden("Sign in to see your notifications"))(showing(access))))

/** **Mark all as read**: every notification of the person seen. */
export const markAllSeen = (access: Access): Effect.Effect<void, Forbidden, Store> =>
  Effect.flatMap(Store, (store) =>
    store.transaction(OwnAccount.check([access], () => forbidden("Sign in to see your notifications"))(
      Effect.zipRight(OwnAccount.needed, Effect.flatMap(Clock.currentTimeMillis, (now) => store.notifications.markSeen(access.user.id, undefined, iso(now)))))))
