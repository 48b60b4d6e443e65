import { Context, type Effect } from "effect"
import type { ChatbotsRepo, DeliveriesRepo, EventsRepo } from "./webhooks.js"
import type { DelegationsRepo, OutcomesRepo, PollOptionsRepo, PollsRepo, PollTemplatesRepo, StancesRepo } from "./polls.js"
import type { OutboxOps } from "./outbox.js"
import type { ReportsRepo } from "./reports.js"
import type { SearchRepo } from "./search.js"
import type { FilesRepo } from "./files.js"
import type { PeopleRepos } from "./people.js"
import type {
  Comment,
  Discussion,
  Group,
  GroupCounts,
  GroupSettings,
  Id,
  Identity,
  MailMessage,
  MailStatus,
  NewMailMessage,
  Membership,
  MembershipRequest,
  LiveEvent,
  Notification,
  Page,
Reaction,
  Tag,
  ThreadItem,
  Topic,
  TopicFilter,
  TopicReader,
  TopicScope,
  User,
  Version
} from "../domain/records.js"
import type { Outcome, Poll, Stance } from "../domain/polls.js"

/**
 * The storage port. Services depend on this interface only; `sqlite/` implements it.
 * Every method that writes must run inside `transaction` (the adapter enforces it).
 */
/** Everything a person wrote, as the records (Download my data). */
export interface WrittenBy {
  readonly discussions: ReadonlyArray<Discussion>
  readonly comments: ReadonlyArray<Comment>
  readonly polls: ReadonlyArray<Poll>
  /** the ballots they cast (without their choices) */
  readonly stances: ReadonlyArray<typeof Stance.Type>
  readonly outcomes: ReadonlyArray<Outcome>
  readonly reactions: ReadonlyArray<Reaction>
}

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
    user: Omit<User, "id" | "deactivated_at" | "deactivator_id" | "redacted_at" | "email_sha256" | "time_zone" | "locale" | "catch_up" | "catch_up_sent_at"> & {
      api_key_hash: string
    }
  ) => Effect.Effect<User>
  readonly update: (id: Id, patch: Partial<Omit<User, "id">>) => Effect.Effect<void>
  /** What a person wrote (Download my data): their threads, comments, polls, votes cast, outcomes and reactions, oldest first. */
  readonly writtenBy: (id: Id) => Effect.Effect<WrittenBy>
  /** the account is someone's from now on: no longer a placeholder an invitation made (signed in, joined, linked) */
  readonly claim: (id: Id) => Effect.Effect<void>
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
  /** The groups with these ids and their counters, read together (one query), by id. */
  readonly withCounts: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<{ readonly group: Group; readonly counts: GroupCounts }>>
  readonly insert: (
    group: Omit<Group, "id" | "created_at" | "updated_at" | "hidden_poll_templates" | "poll_template_positions"> & { created_at: string }
  ) => Effect.Effect<Group>
  readonly update: (id: Id, patch: Partial<GroupSettings & Pick<Group, "hidden_poll_templates" | "poll_template_positions">> & { name?: string; handle?: string | null; updated_at: string }) => Effect.Effect<void>
  /** Direct subgroups of the given groups (a deleted one left out). */
  readonly children: (parentIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Group>>
  /**
   * **Delete group** (`at`) or its restoring (null, only those deleted at `was`): the groups and their members' access
   * change at once (their memberships are touched: the memberships cache reads again).
   */
  readonly setArchived: (ids: ReadonlyArray<Id>, at: string | null, now: string, was?: string) => Effect.Effect<void>
  /** Deleted groups due for purging (archived at or before `at`), subgroups first. */
  readonly archivedBy: (at: string) => Effect.Effect<ReadonlyArray<Group>>
  /** Deletes up to `limit` of the group's threads with all they hold; how many went. */
  readonly purgeTopics: (groupId: Id, limit: number) => Effect.Effect<number>
  /** Deletes the group (its memberships, requests, tags, webhooks with it). */
  readonly delete: (id: Id) => Effect.Effect<void>
  /** `/explore`: open top-level groups whose name or description holds `q` (any case), largest first. */
  readonly explore: (q: string, page: Page) => Effect.Effect<ReadonlyArray<{ readonly group: Group; readonly counts: GroupCounts }>>
  /** **Reset link**: the shareable link's epoch moves on, and the old link stops working. */
  readonly nextJoinLink: (id: Id, at: string) => Effect.Effect<void>
}

export interface MembershipRequestsRepo {
  readonly insert: (r: Pick<MembershipRequest, "group_id" | "requestor_id" | "introduction" | "created_at">) => Effect.Effect<MembershipRequest>
  /** The person's request to the group that waits for an answer. */
  readonly waiting: (groupId: Id, userId: Id) => Effect.Effect<MembershipRequest | undefined>
  readonly byId: (id: Id) => Effect.Effect<MembershipRequest | undefined>
  /** The group's requests: those waiting, oldest first, then up to `answered` answered ones, newest first. */
  readonly inGroup: (groupId: Id, answered: number) => Effect.Effect<ReadonlyArray<MembershipRequest>>
  /** Answers a waiting request; false when it had been answered already. */
  readonly respond: (id: Id, answer: Pick<MembershipRequest, "response" | "responder_id" | "response_message" | "responded_at">) => Effect.Effect<boolean>
}

export interface TagsRepo {
  readonly inGroup: (groupId: Id) => Effect.Effect<ReadonlyArray<Tag>>
  readonly byId: (id: Id) => Effect.Effect<Tag | undefined>
  readonly insert: (t: Omit<Tag, "id">) => Effect.Effect<Tag>
  readonly update: (id: Id, patch: Pick<Tag, "name" | "color">) => Effect.Effect<void>
  readonly delete: (id: Id) => Effect.Effect<void>
  /** A tag renamed (`to`) or deleted (null) on every thread of the group that carries it (threads carry tags by name). */
  readonly retag: (groupId: Id, from: string, to: string | null, at: string) => Effect.Effect<number>
}

export interface NotificationsRepo {
  readonly insert: (n: Omit<Notification, "id" | "seen_at">) => Effect.Effect<void>
  readonly unseenCount: (userId: Id) => Effect.Effect<number>
  /** The person's newest `limit`, those not seen first. */
  readonly latest: (userId: Id, limit: number) => Effect.Effect<ReadonlyArray<Notification>>
  /** These (the person's own) seen now; none: all of theirs. */
  readonly markSeen: (userId: Id, ids: ReadonlyArray<Id> | undefined, at: string) => Effect.Effect<void>
}

export interface LiveRepo {
  /** Call inside the writing transaction: the event is told when (and only if) the write commits. */
  readonly append: (e: Omit<LiveEvent, "id">) => Effect.Effect<void>
  /** Events after `afterId`, oldest first, at most `limit`. */
  readonly after: (afterId: Id, limit: number) => Effect.Effect<ReadonlyArray<LiveEvent>>
  /** Events written after this instant (a page made then), oldest first, at most `limit`. */
  readonly since: (at: string, limit: number) => Effect.Effect<ReadonlyArray<LiveEvent>>
  /** The newest event's id (0: none yet). */
  readonly latestId: Effect.Effect<Id>
  /** Events older than `before` deleted (a page away longer reloads instead of catching up). */
  readonly prune: (before: string) => Effect.Effect<number>
}

export interface VersionsRepo {
  readonly insert: (v: Omit<Version, "id">) => Effect.Effect<Version>
  /** A record's versions, oldest first. */
  readonly of: (itemType: Version["item_type"], itemId: Id) => Effect.Effect<ReadonlyArray<Version>>
  /** Whether the record has been edited at all (its page's **Show edits**), without reading the edits. */
  readonly any: (itemType: Version["item_type"], itemId: Id) => Effect.Effect<boolean>
}

export interface MembershipsRepo {
  readonly byId: (id: Id) => Effect.Effect<Membership | undefined>
  /** The user's active (un-revoked) memberships. */
  readonly activeForUser: (userId: Id) => Effect.Effect<ReadonlyArray<Membership>>
  readonly activeFor: (groupId: Id, userId: Id) => Effect.Effect<Membership | undefined>
  readonly activeInGroup: (groupId: Id, page: Page) => Effect.Effect<ReadonlyArray<Membership>>
  readonly countActiveInGroup: (groupId: Id) => Effect.Effect<number>
  /** The group's administrators who accepted (those told of a request to join, or of the group's deletion). */
  readonly acceptedAdmins: (groupId: Id) => Effect.Effect<ReadonlyArray<Membership>>
  /** Active memberships of active users in the group, with the user's e-mail. */
  readonly activeEmails: (groupId: Id) => Effect.Effect<ReadonlyArray<{ membership: Membership; email: string }>>
  readonly insert: (m: Omit<Membership, "id" | "revoked_at" | "revoker_id" | "updated_at">) => Effect.Effect<Membership>
  readonly revoke: (id: Id, at: string, revokerId: Id | null) => Effect.Effect<void>
  readonly setAdmin: (id: Id, admin: boolean, at: string) => Effect.Effect<void>
  /** A pending invitation accepted. */
  readonly accept: (id: Id, at: string) => Effect.Effect<void>
  readonly revokeAllOfUser: (userId: Id, at: string, revokerId: Id | null) => Effect.Effect<number>
  /** Undoes `revokeAllOfUser` done at exactly `at` (reactivation). */
  readonly restoreRevokedAt: (userId: Id, at: string) => Effect.Effect<number>
}

export interface MailRepo extends OutboxOps {
  readonly enqueue: (m: NewMailMessage) => Effect.Effect<MailMessage>
  readonly list: (status: MailStatus | undefined, page: Page) => Effect.Effect<ReadonlyArray<MailMessage>>
  readonly byId: (id: Id) => Effect.Effect<MailMessage | undefined>
  /** Claims up to `limit` due messages (pending or failed, due by `now`, unclaimed or claim expired) until `until`, oldest first. */
  readonly claimDue: (now: string, until: string, limit: number) => Effect.Effect<ReadonlyArray<MailMessage>>
  readonly record: (
    id: Id,
    patch: Pick<MailMessage, "status" | "attempts" | "next_attempt_at" | "last_error" | "server_reply" | "sent_at">
  ) => Effect.Effect<void>
}

export interface TopicsRepo {
  readonly byId: (id: Id) => Effect.Effect<Topic | undefined>
  /** `byId`, and in a write the thread locked by the same statement (`StoreService.lock`). */
  readonly byIdLocked: (id: Id) => Effect.Effect<Topic | undefined>
  readonly byIds: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Topic>>
  /** Threads in `scope` matching `filter`, latest activity first. */
  readonly visible: (scope: TopicScope, filter: TopicFilter, page: Page) => Effect.Effect<ReadonlyArray<Topic>>
  readonly countVisible: (scope: TopicScope, filter: TopicFilter) => Effect.Effect<number>
  readonly insert: (t: Omit<Topic, "id" | "items_count" | "seen_by_count" | "closed_at" | "closer_id" | "pinned_at" | "discarded_at" | "updated_at">) => Effect.Effect<Topic>
  /** Every thread of these groups public or private (a group's privacy changed); returns how many changed. */
  readonly setPrivacyIn: (groupIds: ReadonlyArray<Id>, isPrivate: boolean, at: string) => Effect.Effect<number>
  readonly update: (
    id: Id,
    patch: Partial<Pick<Topic, "group_id" | "topicable_id" | "private" | "tags" | "last_activity_at" | "closed_at" | "closer_id" | "pinned_at" | "discarded_at">> & {
      updated_at: string
    }
  ) => Effect.Effect<void>
}

export interface DiscussionsRepo {
  /**
   * With its thread and group in one statement (kept for the request); with `readerOf`, that person's place in the
   * thread too (kept: `ReadersRepo.find` answers it without a statement of its own).
   */
  readonly byId: (id: Id, readerOf?: Id) => Effect.Effect<Discussion | undefined>
  readonly byKey: (key: string, readerOf?: Id) => Effect.Effect<Discussion | undefined>
  readonly byTopicIds: (topicIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Discussion>>
  readonly insert: (d: Omit<Discussion, "id" | "discarded_at" | "discarded_by" | "updated_at">) => Effect.Effect<Discussion>
  readonly update: (
    id: Id,
    patch: Partial<Pick<Discussion, "title" | "description" | "description_format" | "discarded_at" | "discarded_by">> & { updated_at: string }
  ) => Effect.Effect<void>
}

export interface CommentsRepo {
  readonly byId: (id: Id) => Effect.Effect<Comment | undefined>
  readonly byIds: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Comment>>
  readonly insert: (c: Omit<Comment, "id" | "topic_id" | "edited_at" | "discarded_at" | "discarded_by" | "updated_at">) => Effect.Effect<Comment>
  readonly update: (
    id: Id,
    patch: Partial<Pick<Comment, "body" | "body_format" | "edited_at" | "discarded_at" | "discarded_by">> & { updated_at: string }
  ) => Effect.Effect<void>
}

/** An item appended, and its thread as the append left it (counters, activity). */
export interface Appended {
  readonly item: ThreadItem
  readonly topic: Topic
}

export interface ItemsRepo {
  /** Every item of a thread, by sequence_id. */
  readonly ofTopic: (topicId: Id) => Effect.Effect<ReadonlyArray<ThreadItem>>
  readonly byId: (id: Id) => Effect.Effect<ThreadItem | undefined>
  readonly byItemable: (type: ThreadItem["itemable_type"], id: Id) => Effect.Effect<ThreadItem | undefined>
  /** Up to `limit` items from `position_key` `from` on, in the tree's order (the thread's own item, which has none, left out). */
  readonly fromPosition: (topicId: Id, from: string, limit: number) => Effect.Effect<ReadonlyArray<ThreadItem>>
  /** The items of positions between `from` and `until` (excluded), in the tree's order. */
  readonly between: (topicId: Id, from: string, until: string) => Effect.Effect<ReadonlyArray<ThreadItem>>
  /** Up to `limit` items before `position_key` `before`, the nearest first. */
  readonly beforePosition: (topicId: Id, before: string, limit: number) => Effect.Effect<ReadonlyArray<ThreadItem>>
  /** The item of this sequence_id, or of this position_key. */
  readonly bySequence: (topicId: Id, sequenceId: number) => Effect.Effect<ThreadItem | undefined>
  /** The first item at or after this sequence id (the first unread one may have been deleted). */
  readonly fromSequence: (topicId: Id, sequenceId: number) => Effect.Effect<ThreadItem | undefined>
  readonly atPosition: (topicId: Id, positionKey: string) => Effect.Effect<ThreadItem | undefined>
  /**
   * Appends an item: sequence_id is the thread's next; a child takes the next position under its parent. `bump`:
   * the thread's last activity moves to the item's time too (in the same statement as its item count).
   */
  readonly append: (
    item: Pick<ThreadItem, "topic_id" | "kind" | "itemable_type" | "itemable_id" | "actor_id" | "created_at"> & {
      /** null: the thread's own item (sequence 0); "thread": under it, found by the append itself */
      readonly parent: ThreadItem | "thread" | null
      readonly bump: boolean
    }
  ) => Effect.Effect<Appended>
}

export interface ReactionsRepo {
  readonly byId: (id: Id) => Effect.Effect<Reaction | undefined>
  readonly ofTopic: (topicId: Id) => Effect.Effect<ReadonlyArray<Reaction>>
  readonly ofReactables: (type: Reaction["reactable_type"], ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<Reaction>>
  readonly find: (r: Pick<Reaction, "reactable_type" | "reactable_id" | "user_id" | "reaction">) => Effect.Effect<Reaction | undefined>
  readonly insert: (r: Omit<Reaction, "id">) => Effect.Effect<Reaction>
  readonly delete: (id: Id) => Effect.Effect<void>
}

export interface ReadersRepo {
  readonly find: (topicId: Id, userId: Id) => Effect.Effect<TopicReader | undefined>
  /** Adds the reader, or makes an existing one a guest when `guest` is true (never demotes). */
  readonly upsert: (r: Pick<TopicReader, "topic_id" | "user_id" | "inviter_id" | "guest" | "created_at">) => Effect.Effect<TopicReader>
  /** User ids of the thread's un-revoked guests. */
  readonly guestsOf: (topicId: Id) => Effect.Effect<ReadonlyArray<Id>>
  /** The un-revoked guests of each of these threads, in one statement. */
  readonly guestsIn: (topicIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<{ readonly topic_id: Id; readonly user_id: Id }>>
  /** The person's readers of these threads (read state in lists). */
  readonly ofTopics: (userId: Id, topicIds: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<TopicReader>>
  /**
   * Sets what the person has read (`ranges`, normalised by rules/readState.ts) and when, in one statement; a reader
   * changed since it was read (`previous`: its ranges then, null where there was none) is left as it is: no read is
   * lost, and the next view adds this one's items again.
   */
  readonly markRead: (r: { topic_id: Id; user_id: Id; ranges: string; previous: string | null; at: string }) => Effect.Effect<void>
  /** Every item of the thread read, and dismissed (Mark as read in a list), in one statement. */
  readonly markThreadRead: (topicId: Id, userId: Id, at: string) => Effect.Effect<void>
  /** Every visible thread with something new marked as read and dismissed (Mark all as read), in one statement. */
  readonly markAllRead: (userId: Id, scope: TopicScope, at: string) => Effect.Effect<number>
}

/** The records a write locks before it checks (what must stay ordered is ordered by these rows), or a named key. */
export type Locked =
  | { readonly table: "groups" | "polls" | "outcomes" | "users"; readonly id: number }
  | { readonly key: string }

/** The people repositories (invitations, sign-in, sessions, volumes, reply addresses …) are PeopleRepos' (ports/people.ts). */
export interface StoreService extends PeopleRepos {
  /**
   * Runs `effect` as one database transaction under a single write permit.
   * Commits on success; rolls back on failure, defect or interruption. Nested calls join the outer one.
   */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Runs one request's work (an API call, a page): what it reads twice (a group, the caches' epochs) is read once,
   * until it commits a write. SQLite's reads share a snapshot per turn of the event loop and need no more; on
   * PostgreSQL, outside a request every read is read and no cache is trusted. A request inside one joins it.
   */
  readonly request: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Inside a transaction, holds what a write checks before it writes (the poll, group or person; a named key; the
   * thread is read and locked in one statement, `topics.byIdLocked`) until it commits, so that writers side by side (PostgreSQL, several servers) check in turn. A no-op
   * outside a transaction and where there is one writer at a time (SQLite): true when it locked, so that what was read
   * before is read again.
   */
  readonly lock: (what: Locked) => Effect.Effect<boolean>
  /** Cheap liveness probe (healthz). */
  readonly ping: Effect.Effect<boolean>
  /**
   * Calls `wake` when live events may have been committed (decisions §13): after this process's write transactions
   * (SQLite: one server), or any server's (PostgreSQL: LISTEN/NOTIFY).
   */
  readonly listenLive: (wake: () => void) => LiveListening
  readonly users: UsersRepo
  readonly groups: GroupsRepo
  readonly memberships: MembershipsRepo
  readonly membershipRequests: MembershipRequestsRepo
  readonly tags: TagsRepo
  readonly versions: VersionsRepo
  readonly notifications: NotificationsRepo
  readonly live: LiveRepo
  readonly mail: MailRepo
  readonly topics: TopicsRepo
  readonly discussions: DiscussionsRepo
  readonly comments: CommentsRepo
  readonly items: ItemsRepo
  readonly reactions: ReactionsRepo
  readonly readers: ReadersRepo
  readonly chatbots: ChatbotsRepo
  readonly events: EventsRepo
  readonly deliveries: DeliveriesRepo
  readonly polls: PollsRepo
  readonly pollOptions: PollOptionsRepo
  readonly stances: StancesRepo
  readonly outcomes: OutcomesRepo
  readonly delegations: DelegationsRepo
  readonly pollTemplates: PollTemplatesRepo
  readonly files: FilesRepo
  readonly search: SearchRepo
  readonly reports: ReportsRepo
}

/** A live listener: how to stop it, and when it hears every commit from now on (PostgreSQL: once its LISTEN is in place). */
export interface LiveListening {
  readonly stop: () => void
  readonly ready: () => Promise<void>
}

/** A database that cannot be used (cannot open, commit, or reach it): requests answer 503, commands exit 1. */
export class DatabaseError extends Error {
  override readonly name = "DatabaseError"
}

export class Store extends Context.Tag("@convene/core/Store")<Store, StoreService>() {}
