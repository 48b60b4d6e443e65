/**
 * Every repository, written once over the store client (client.ts). An adapter (sqlite/, postgres/) gives the
 * client, its transactions, and what only its engine does (search, reports); `makeRepositories` gives the rest.
 */
import type { StoreService } from "../ports/store.js"
import type { SqlClient } from "./client.js"
import { makeGroupsRepo, makeMembershipRequestsRepo, makeLiveRepo, makeMembershipsRepo, makeNotificationsRepo, makeTagsRepo, makeVersionsRepo } from "./groups.js"
import { makeChatbotsRepo, makeDeliveriesRepo, makeEventsRepo, makeMailRepo } from "./outboxes.js"
import { makePeopleRepos } from "./people.js"
import { makeDelegationsRepo, makeOutcomesRepo, makePollTemplatesRepo, makePollOptionsRepo, makePollsRepo, makeStancesRepo } from "./polls.js"
import { makeCommentsRepo, makeDiscussionsRepo, makeItemsRepo, makeReactionsRepo, makeReadersRepo, makeTopicsRepo } from "./threads.js"
import { makeUsersRepo } from "./users.js"
import { makeFilesRepo } from "./files.js"

export type { Dialect, SqlClient } from "./client.js"

/** What an adapter adds to the repositories: transactions, requests, a liveness probe, and its engine's search and reports. */
export type Repositories = Omit<StoreService, "transaction" | "request" | "ping" | "listenLive" | "search" | "reports">

export const makeRepositories = (c: SqlClient): Repositories => ({
  lock: c.lock,
  users: makeUsersRepo(c),
  groups: makeGroupsRepo(c),
  memberships: makeMembershipsRepo(c),
  membershipRequests: makeMembershipRequestsRepo(c),
  tags: makeTagsRepo(c),
  versions: makeVersionsRepo(c),
  notifications: makeNotificationsRepo(c),
  live: makeLiveRepo(c),
  mail: makeMailRepo(c),
  ...makePeopleRepos(c),
  topics: makeTopicsRepo(c),
  discussions: makeDiscussionsRepo(c),
  comments: makeCommentsRepo(c),
  items: makeItemsRepo(c),
  reactions: makeReactionsRepo(c),
  readers: makeReadersRepo(c),
  chatbots: makeChatbotsRepo(c),
  events: makeEventsRepo(c),
  deliveries: makeDeliveriesRepo(c),
  polls: makePollsRepo(c),
  pollOptions: makePollOptionsRepo(c),
  stances: makeStancesRepo(c),
  outcomes: makeOutcomesRepo(c),
  delegations: makeDelegationsRepo(c),
  pollTemplates: makePollTemplatesRepo(c),
  files: makeFilesRepo(c)
})
