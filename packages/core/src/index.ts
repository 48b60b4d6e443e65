/**
 * @convene/core: the domain of convene, embeddable in any Node application.
 *
 *   const convene = makeConvene({ filename: "convene.db" })
 *   const { user, apiKey } = await convene.users.create({ email: "ada@example.org", name: "Ada" })
 *   const group = await convene.groups.create({ name: "Board", owner: user })
 *   await convene.close()
 *
 * Every use case is also exported as an Effect that needs the `Store` service, for Effect programs.
 */
import { Effect, Either, Layer, ManagedRuntime, ParseResult, Schema } from "effect"
import * as InputSchemas from "./domain/inputs.js"
import type { PollStatus } from "./ports/polls.js"
import { badRequest } from "./errors.js"
import { INVITATION_TTL_DAYS } from "./rules/people.js"
import { Store, type StoreService } from "./ports/store.js"
import { makeSqliteStore } from "./sqlite/index.js"
import { isPostgresUrl, makePgStore } from "./postgres/index.js"
import * as Users from "./services/users.js"
import * as Groups from "./services/groups.js"
import * as Account from "./services/account.js"
import * as Joining from "./services/joining.js"
import * as GroupDeletion from "./services/groupDeletion.js"
import * as ThreadAdmin from "./services/threadAdmin.js"
import * as Notifications from "./services/notifications.js"
import * as Reading from "./services/reading.js"
import * as Live from "./services/live.js"
import * as Memberships from "./services/memberships.js"
import * as Mail from "./services/mail.js"
import * as Auth from "./services/auth.js"
import * as Discussions from "./services/discussions.js"
import * as Comments from "./services/comments.js"
import * as Threads from "./services/threads/index.js"
import * as Reactions from "./services/reactions.js"
import * as Chatbots from "./services/chatbots.js"
import * as Polls from "./services/polls/index.js"
import * as Stances from "./services/stances.js"
import * as Outcomes from "./services/outcomes.js"
import * as Scheduler from "./services/scheduler.js"
import * as Events from "./services/events.js"
import * as Deliveries from "./services/deliveries.js"
import * as Search from "./services/search.js"
import * as Reports from "./services/reports.js"
import * as People from "./services/people.js"
import * as Identities from "./services/identities.js"
import * as Inbound from "./services/inbound.js"
import * as Volumes from "./services/volumes.js"
import * as Digest from "./services/digest.js"
import * as Attachments from "./services/attachments.js"
import * as Delegation from "./services/delegation.js"
import * as Downloads from "./services/downloads.js"
import { NodeUrlPolicyLive, UrlPolicy } from "./services/urls.js"
import { loadAccess } from "./services/common.js"
import type { User } from "./domain/records.js"
import { exportGroupRows, importLoomioRows } from "./databases.js"
import { bringFiles, type FilesDirectory, writeExportFiles } from "./transfer/files.js"
import type { ImportOptions, ImportResult } from "./transfer/loomio/import.js"
import type { ExportResult } from "./transfer/loomio/export.js"

export * from "./domain/records.js"
export { fieldsOf, Id as IdField, type Model, model, NullId, NullStamp, NullText, serializer, Stamp } from "./domain/model.js"
export * from "./errors.js"
export * from "./ports/store.js"
export type { OutboxBacklog } from "./ports/outbox.js"
export { DatabaseError, makeSqliteStore, SqliteStoreLive, migrate, migrations } from "./sqlite/index.js"
export { ImportError, type ImportOptions, type ImportProgress, type ImportResult } from "./transfer/loomio/import.js"
export { ExportError, type ExportResult } from "./transfer/loomio/export.js"
export { CopyError, type CopyProgress, type CopyResult, copyInstall } from "./transfer/copy.js"
export { backupDatabase, inspectAnyDatabase, restoreDatabase } from "./databases.js"
export type { FilesDirectory } from "./transfer/files.js"
export * as Loomio from "./domain/loomio.js"
export type { DatabaseReport } from "./ports/database.js"
export { databaseInUse, inspectDatabase, type RestoreResult } from "./sqlite/maintenance.js"
export * as Rules from "./rules/index.js"
export * as Policies from "./policies.js"
export * as Messages from "./messages/index.js"
export { Users, Groups, Memberships, Mail, Auth, Account, Joining, GroupDeletion }
export { Discussions, Comments, Threads, Reactions, ThreadAdmin }
export { Chatbots, Events, Deliveries, Polls, Stances, Outcomes, Scheduler }
export { Search, Reports, People, Identities, Inbound, Volumes, Digest, Notifications, Reading, Live, Attachments, Downloads, Delegation }
export * from "./domain/files.js"
export { FileStorage, type FileStorageService, type Received, ReceiveError, type ByteRange } from "./ports/files.js"
export { directoryStorage } from "./files/directory.js"
export { type S3Settings, s3Storage } from "./files/s3.js"
export { sniffContentType } from "./files/sniff.js"
export { type ExternalIdentity, type IdentityProvider, ProviderFailed, type ProviderStart } from "./ports/identity.js"
export * from "./domain/search.js"
export * from "./domain/reports.js"
export type { PollStatus } from "./ports/polls.js"
export * from "./domain/webhooks.js"
export * from "./domain/polls.js"
export * from "./domain/refs.js"
export * as Inputs from "./domain/inputs.js"
export type { DeliveryFilter } from "./ports/webhooks.js"
export { UrlPolicy, NodeUrlPolicyLive, nodeUrlPolicy, checkDestination, type CheckedDestination } from "./services/urls.js"
export { loadAccess, nowIso, DEFAULT_PAGE, type Paged } from "./services/common.js"
export { hashApiKey, secretsEqual } from "./rules/keys.js"
export type { Access } from "./rules/access.js"

export { isPostgresUrl, makePgStore, PgDatabaseError, pgMigrations, pgRowTypes, type PgStore, type PgStoreOptions } from "./postgres/index.js"

export interface ConveneOptions {
  /** SQLite file; ":memory:" for a throw-away database. */
  readonly filename: string
  /** Another store in place of the SQLite file (`openConvene` passes the PostgreSQL one). */
  readonly store?: StoreService & { readonly close: () => void | Promise<void> }
  /** Allow webhooks to private and reserved addresses (CONVENE_ALLOW_PRIVATE_WEBHOOKS). Default false. */
  readonly allowPrivateWebhooks?: boolean
  /** How many days an invitation stays valid (INVITATION_TTL_DAYS). Default 30. */
  readonly invitationTtlDays?: number
  /** Only the server's administrators start groups (FEATURES_DISABLE_CREATE_GROUP=1). Default false: anyone signed in. */
  readonly onlyAdminsStartGroups?: boolean
}

/** Builds the core over one SQLite file (or the store given): the Store layer, a runtime, and a Promise-friendly facade. */
export const makeConvene = (options: ConveneOptions) => {
  const store = options.store ?? makeSqliteStore(options.filename)
  const layer = Layer.mergeAll(
    Layer.succeed(Store, store),
    NodeUrlPolicyLive(options.allowPrivateWebhooks ?? false),
    Layer.succeed(People.InvitationTtlDays, options.invitationTtlDays ?? INVITATION_TTL_DAYS),
    Layer.succeed(Groups.GroupCreation, { onlyAdmins: options.onlyAdminsStartGroups ?? false })
  )
  const runtime = ManagedRuntime.make(layer)

  /**
   * Runs a use case, as one of the store's requests (what it reads twice is read once; on PostgreSQL the caches
   * are trusted for it); a domain error rejects the promise with the error value itself (NotFound, Invalid …).
   */
  const run = <A, E>(effect: Effect.Effect<A, E, Store | UrlPolicy>): Promise<A> =>
    runtime.runPromise(Effect.either(store.request(effect))).then((r) => {
      if (Either.isLeft(r)) throw r.left
      return r.right
    })

  /**
   * An embedder's input, decoded by the Schema the HTTP API decodes it with: bad input is refused the same
   * way (BadRequest naming the field) before any rule runs.
   */
  const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
    Effect.mapError(Schema.decodeUnknown(schema)(input), (e) => {
      const [first] = ParseResult.ArrayFormatter.formatErrorSync(e)
      return badRequest(first === undefined ? "Invalid input" : `Invalid ${first.path.join(".") || "input"}: ${first.message}`)
    })

  /** The use cases that act as a user, with that user's permissions. */
  const as = (user: User) => {
    const access = loadAccess(user)
    /** Decodes `input`, then runs the use case as this user. */
    const act = <A, I, B, E>(schema: Schema.Schema<A, I>, input: I, useCase: (a: Effect.Effect.Success<typeof access>, i: A) => Effect.Effect<B, E, Store>) =>
      run(Effect.flatMap(Effect.zip(access, decode(schema, input)), ([a, i]) => useCase(a, i)))
    return {
      groups: () => run(Effect.flatMap(access, Groups.listGroupsFor)),
      group: (ref: string) => run(Effect.flatMap(access, (a) => Groups.showGroup(a, ref))),
      memberships: (groupId: number, page = { limit: 50, offset: 0 }) =>
        run(Effect.flatMap(access, (a) => Memberships.listMemberships(a, groupId, page))),
      syncMemberships: (groupId: number, emails: ReadonlyArray<string>, removeAbsent = false) =>
        run(Effect.flatMap(access, (a) => Memberships.syncMemberships(a, groupId, emails, removeAbsent))),
      startDiscussion: (input: Discussions.DiscussionInput) =>
        run(Effect.flatMap(access, (a) => Discussions.createDiscussion(a, input))),
      discussion: (ref: string) => run(Effect.flatMap(access, (a) => Discussions.showDiscussion(a, ref))),
      comment: (discussionId: number, input: Comments.CommentInput) =>
        run(Effect.flatMap(access, (a) => Comments.createComment(a, discussionId, input))),
      react: (input: Reactions.ReactionInput) => run(Effect.flatMap(access, (a) => Reactions.addReaction(a, input))),
      threadMarkdown: (topicId: number) => run(Effect.flatMap(access, (a) => Threads.threadMarkdown(a, topicId))),
      search: (input: Search.SearchInput) => run(Effect.flatMap(access, (a) => Search.search(a, input))),
      report: (params: Parameters<typeof Reports.participationReport>[1]) =>
        run(Effect.flatMap(access, (a) => Reports.participationReport(a, params))),
      // polls, votes and outcomes: the rules of /api/b2/polls, /stances and /outcomes
      startPoll: (input: typeof InputSchemas.PollInput.Encoded) => act(InputSchemas.PollInput, input, Polls.createPoll),
      poll: (ref: string) => run(Effect.flatMap(access, (a) => Polls.showPoll(a, ref))),
      polls: (groupId: number, status: PollStatus = "active", page = { limit: 50, offset: 0 }) =>
        run(Effect.flatMap(access, (a) => Polls.listPolls(a, groupId, status, page))),
      updatePoll: (ref: string, input: typeof InputSchemas.PollPatchInput.Encoded) =>
        act(InputSchemas.PollPatchInput, input, (a, i) => Polls.updatePoll(a, ref, i)),
      closePoll: (ref: string) => run(Effect.flatMap(access, (a) => Polls.closePoll(a, ref))),
      reopenPoll: (ref: string, closingAt: string) =>
        act(InputSchemas.PollReopenInput, { closing_at: closingAt }, (a, i) => Polls.reopenPoll(a, ref, i.closing_at)),
      deletePoll: (ref: string) => run(Effect.flatMap(access, (a) => Polls.deletePoll(a, ref))),
      vote: (input: typeof InputSchemas.StanceInput.Encoded) => act(InputSchemas.StanceInput, input, Stances.castVote),
      publishOutcome: (input: typeof InputSchemas.OutcomeInput.Encoded) =>
        act(InputSchemas.OutcomeInput, input, (a, { poll_id, ...i }) => Outcomes.createOutcome(a, poll_id, i)),
      updateOutcome: (id: number, input: typeof InputSchemas.OutcomePatchInput.Encoded) =>
        act(InputSchemas.OutcomePatchInput, input, (a, i) => Outcomes.updateOutcome(a, id, i))
    }
  }

  return {
    store,
    layer,
    runtime,
    run,
    as,
    authenticate: (apiKey: string) => run(Auth.authenticate(apiKey)),
    users: {
      create: (input: Users.NewUser) => run(Users.createUser(input)),
      show: (ref: Users.UserRef) => run(Users.showUser(ref)),
      deactivate: (ref: Users.UserRef) => run(Users.deactivateUser(ref)),
      reactivate: (ref: Users.UserRef) => run(Users.reactivateUser(ref)),
      redact: (ref: Users.UserRef) => run(Users.redactUser(ref)),
      delete: (ref: Users.UserRef) => run(Users.deleteUser(ref))
    },
    groups: {
      create: (input: Groups.NewGroup) => run(Groups.createGroup(input)),
      list: () => run(Groups.listAllGroups)
    },
    members: {
      add: (input: Memberships.NewMember) => run(Memberships.addMember(input))
    },
    close: async () => {
      await runtime.dispose()
      await store.close()
    }
  }
}

export type Convene = ReturnType<typeof makeConvene>

/**
 * A Loomio group export into the database: all its records or none; then, given a files directory, the files its
 * lines name, attached to their records (a file the directory lacks is named; the import goes on).
 */
export const importLoomioExport = async (database: string, file: string, options: ImportOptions & { readonly files?: FilesDirectory } = {}): Promise<ImportResult> =>
  bringFiles(() => openConvene({ database }), await importLoomioRows(database, file, options), options.files, options.dryRun === true)

/** A group, its subgroups, people and content as a Loomio group export; given a files directory, its files into it. */
export const exportGroup = async (database: string, ref: string, to: string, files?: FilesDirectory): Promise<ExportResult> => {
  const { blobs, ...result } = await exportGroupRows(database, ref, to)
  return files === undefined ? result : { ...result, files: await writeExportFiles(blobs, files) }
}

/**
 * The core over the database `database` names: a `postgres://` URL (connected and migrated first; an
 * unreachable server rejects with a DatabaseError naming host and port), else a SQLite file.
 */
export const openConvene = async (options: Omit<ConveneOptions, "filename" | "store"> & { readonly database: string; readonly poolSize?: number }): Promise<Convene> => {
  const { database, poolSize, ...rest } = options
  if (!isPostgresUrl(database)) return makeConvene({ ...rest, filename: database })
  const store = await makePgStore(database, poolSize === undefined ? {} : { poolSize })
  return makeConvene({ ...rest, filename: "", store })
}
