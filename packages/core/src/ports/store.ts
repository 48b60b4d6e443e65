import { Context, type Effect } from "effect"
import type {
  Group,
  GroupCounts,
  GroupSettings,
  Id,
  Identity,
  MailMessage,
  Membership,
  Page,
  User
} from "../domain/records.js"

/**
 * The storage port. Services depend on this interface only; `sqlite/` implements it.
 * Every method that writes must run inside `transaction` (the adapter enforces it).
 */
export interface UsersRepo {
  readonly byId: (id: Id) => Effect.Effect<User | undefined>
  readonly byIds: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<User>>
  readonly byEmail: (email: string) => Effect.Effect<User | undefined>
  readonly byUsername: (username: string) => Effect.Effect<User | undefined>
  readonly byApiKeyHash: (hash: string) => Effect.Effect<{ user: User; api_key_hash: string } | undefined>
  readonly byIdentity: (identityType: string, uid: string) => Effect.Effect<User | undefined>
  readonly list: (filter: { is_admin?: boolean }, page: Page) => Effect.Effect<ReadonlyArray<User>>
  readonly count: (filter: { is_admin?: boolean }) => Effect.Effect<number>
  readonly identitiesOf: (userIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Identity>>
  readonly insert: (
    user: Omit<User, "id" | "deactivated_at" | "deactivator_id" | "redacted_at" | "email_sha256"> & {
      api_key_hash: string
    }
  ) => Effect.Effect<User>
  readonly update: (id: Id, patch: Partial<Omit<User, "id">>) => Effect.Effect<void>
  readonly setApiKeyHash: (id: Id, hash: string) => Effect.Effect<void>
  readonly addIdentity: (identity: Omit<Identity, "id">) => Effect.Effect<Identity>
  readonly deleteIdentities: (userId: Id) => Effect.Effect<void>
  /** Permanently removes the user; rows they authored go with them (ON DELETE CASCADE). */
  readonly delete: (id: Id) => Effect.Effect<void>
}

export interface GroupsRepo {
  readonly byId: (id: Id) => Effect.Effect<Group | undefined>
  readonly byIds: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Group>>
  /** Numeric id, key, then handle (as Loomio's ModelLocator). */
  readonly byRef: (ref: string) => Effect.Effect<Group | undefined>
  readonly byHandle: (handle: string) => Effect.Effect<Group | undefined>
  readonly list: () => Effect.Effect<ReadonlyArray<Group>>
  /** Groups where the user has an active (un-revoked) membership, by id. */
  readonly forUser: (userId: Id) => Effect.Effect<ReadonlyArray<Group>>
  readonly counts: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyMap<Id, GroupCounts>>
  readonly insert: (
    group: Omit<Group, "id" | "created_at" | "updated_at"> & { created_at: string }
  ) => Effect.Effect<Group>
  readonly update: (id: Id, patch: Partial<GroupSettings> & { name?: string; handle?: string | null; updated_at: string }) => Effect.Effect<void>
}

export interface MembershipsRepo {
  readonly byId: (id: Id) => Effect.Effect<Membership | undefined>
  /** The user's active (un-revoked) memberships. */
  readonly activeForUser: (userId: Id) => Effect.Effect<ReadonlyArray<Membership>>
  readonly activeFor: (groupId: Id, userId: Id) => Effect.Effect<Membership | undefined>
  readonly activeInGroup: (groupId: Id, page: Page) => Effect.Effect<ReadonlyArray<Membership>>
  readonly countActiveInGroup: (groupId: Id) => Effect.Effect<number>
  /** Active memberships of active users in the group, with the user's e-mail. */
  readonly activeEmails: (groupId: Id) => Effect.Effect<ReadonlyArray<{ membership: Membership; email: string }>>
  readonly insert: (m: Omit<Membership, "id" | "revoked_at" | "revoker_id" | "updated_at">) => Effect.Effect<Membership>
  readonly revoke: (id: Id, at: string, revokerId: Id | null) => Effect.Effect<void>
  readonly revokeAllOfUser: (userId: Id, at: string, revokerId: Id | null) => Effect.Effect<number>
  /** Undoes `revokeAllOfUser` done at exactly `at` (reactivation). */
  readonly restoreRevokedAt: (userId: Id, at: string) => Effect.Effect<number>
}

export interface MailRepo {
  readonly enqueue: (m: Omit<MailMessage, "id" | "sent_at">) => Effect.Effect<MailMessage>
  readonly list: (page: Page) => Effect.Effect<ReadonlyArray<MailMessage>>
}

export interface StoreService {
  /**
   * Runs `effect` as one database transaction under a single write permit.
   * Commits on success; rolls back on failure, defect or interruption. Nested calls join the outer one.
   */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Cheap liveness probe (healthz). */
  readonly ping: Effect.Effect<boolean>
  readonly users: UsersRepo
  readonly groups: GroupsRepo
  readonly memberships: MembershipsRepo
  readonly mail: MailRepo
}

export class Store extends Context.Tag("@convene/core/Store")<Store, StoreService>() {}
