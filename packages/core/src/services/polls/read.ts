/** Reading polls: finding one the caller may see, the views readers get, the lists, and what documents side-load. */
import { Effect } from "effect"
import { type Outcome, type Poll, type PollOption, type Stance } from "../../domain/polls.js"
import type { Group, Id, Page, Topic, TopicScope, User } from "../../domain/records.js"
import { forbidden, type Forbidden, notFound, type NotFound } from "../../errors.js"
import type { PollStatus } from "../../ports/polls.js"
import { Store } from "../../ports/store.js"
import type { Access } from "../../rules/access.js"
import { type PollResults, resultsFromTally } from "../../rules/pollTypes.js"
import { canClosePoll, canEditPoll, canRemindVoters, canReopenPoll, canSeeResults, canStateOutcome, type VoteRefusal, voteRefusal } from "../../rules/polls.js"
import { ListGroupPolls, type Permit, ShowPoll } from "../../policies.js"
import { groupTopicScope, type TopicContext } from "../../rules/topics.js"
import { type Paged, readLocked } from "../common.js"
import { type GroupView, viewGroupsById } from "../groups.js"
import { topicById, topicContext } from "../threads/kernel.js"
import { recordRef } from "../../domain/refs.js"


/** By id or key; with `readerOf`, that person's place in the thread read with it (kept for `topicContext`). */
export const findPoll = Effect.fnUntraced(function*(ref: string | number, readerOf?: Id): Effect.fn.Return<Poll, NotFound, Store> {
  const store = yield* Store
  const r = recordRef(ref)
  // locked in a write: a vote, a close and the scheduler check the poll in turn
  const poll = yield* readLocked("polls", "id" in r ? store.polls.byId(r.id, readerOf) : store.polls.byKey(r.key, readerOf), store.polls.byId)
  if (poll === undefined) return yield* notFound(`Poll ${ref} not found`)
  return poll
})

export interface PollContext {
  readonly poll: Poll
  readonly ctx: TopicContext
  /** the caller's latest ballot, if any */
  readonly ballot: Stance | undefined
}

/** A poll the caller may see (its thread is visible, or they hold a ballot), else 404. */
export const visiblePoll = (access: Access, ref: string | number): Effect.Effect<PollContext, NotFound, Store> =>
  Effect.flatMap(findPoll(ref, access.user.id), (poll) => visibleFoundPoll(access, poll, ref))

/** `visiblePoll` of a poll already read. */
export const visibleFoundPoll = Effect.fnUntraced(function*(access: Access, poll: Poll, ref: string | number): Effect.fn.Return<PollContext, NotFound, Store> {
  const store = yield* Store
  const ctx = yield* topicContext(access, yield* topicById(poll.topic_id))
  const ballot = yield* store.stances.latestFor(poll.id, access.user.id)
  return yield* ShowPoll.check([access, ctx, poll, ballot], () => notFound(`Poll ${ref} not found`))(Effect.as(ShowPoll.needed, { poll, ctx, ballot }))
})

/** What a reader gets: the poll, its options, results when the reader may see them, the current outcome. */
export interface PollView {
  readonly poll: Poll
  readonly topic: Topic
  readonly options: ReadonlyArray<PollOption>
  /** null while hidden from this reader (hide_results) */
  readonly results: PollResults | null
  /** counts of ballots issued and cast are always shown */
  readonly voters_count: number
  readonly cast_count: number
  /** of them, cast by delegates' votes (decisions §15) */
  readonly delegated_count: number
  /** the reader's own latest ballot; other people's ballots are not side-loaded (a poll may have thousands) */
  readonly my_stance: Stance | undefined
  readonly outcome: Outcome | undefined
  readonly discussion_id: Id | null
}

/** What the request has already read about these polls, so that their views do not read it again. */
export interface KnownOfPolls {
  /** their threads, as they stand now */
  readonly topics?: ReadonlyArray<Topic>
  /** the caller's live ballots in them (a poll without one here has none) */
  readonly mine?: ReadonlyArray<Stance>
  /** their options, as they stand now */
  readonly options?: ReadonlyArray<PollOption>
}

/** The caller's live ballot among a poll's context (its latest ballot, unless revoked). */
const liveBallot = ({ ballot }: PollContext): ReadonlyArray<Stance> =>
  ballot === undefined || ballot.revoked_at !== null ? [] : [ballot]

/** Views of many polls in one query per record type. */
export const viewPolls = Effect.fnUntraced(function*(
  access: Access,
  polls: ReadonlyArray<Poll>,
  known: KnownOfPolls = {}
): Effect.fn.Return<ReadonlyArray<PollView>, never, Store> {
  const store = yield* Store
  const ids = polls.map((p) => p.id)
  const options = known.options ?? (yield* store.pollOptions.ofPolls(ids))
  const tallies = yield* store.stances.tallies(ids)
  const mine = known.mine ?? (yield* store.stances.mineOf(ids, access.user.id))
  const outcomes = yield* store.outcomes.latestOf(ids)
  const topics = new Map((known.topics ?? (yield* store.topics.byIds([...new Set(polls.map((p) => p.topic_id))]))).map((t) => [t.id, t]))
  const discussions = yield* store.discussions.byTopicIds([...topics.values()].filter((t) => t.topicable_type === "Discussion").map((t) => t.id))
  return polls.map((poll) => {
    const opts = options.filter((o) => o.poll_id === poll.id)
    const myStance = mine.find((s) => s.poll_id === poll.id)
    const visible = canSeeResults(poll, myStance)
    const results = resultsFromTally(poll.poll_type, opts, tallies.get(poll.id)!, poll.anonymous)
    return {
      poll,
      topic: topics.get(poll.topic_id)!,
      options: opts,
      results: visible ? results : null,
      voters_count: results.voters_count,
      cast_count: results.cast_count,
      delegated_count: results.delegated_count,
      my_stance: myStance,
      outcome: outcomes.find((o) => o.poll_id === poll.id),
      discussion_id: discussions.find((d) => d.topic_id === poll.topic_id)?.id ?? null
    }
  })
})

/** One poll as its reader sees it, and whether they may vote in it now (the vote rule's answer, null: they may). */
export interface ShownPoll extends PollView {
  readonly vote_refusal: VoteRefusal | null
  /** what else the rules let the reader do with it now (pages show a control only when its rule allows it) */
  readonly may: { readonly close: boolean; readonly reopen: boolean; readonly outcome: boolean; readonly edit: boolean; readonly remind: boolean }
}

export const showPoll = (access: Access, ref: string): Effect.Effect<ShownPoll, NotFound, Store> =>
  Effect.flatMap(visiblePoll(access, ref), (found) =>
    Effect.map(viewPolls(access, [found.poll], { topics: [found.ctx.topic], mine: liveBallot(found) }), (v) => Object.assign({}, v[0]!, {
      vote_refusal: voteRefusal(access, found.ctx, found.poll, found.ballot),
      may: {
        close: canClosePoll(access, found.ctx, found.poll),
        remind: canRemindVoters(access, found.ctx, found.poll),
        reopen: canReopenPoll(access, found.ctx, found.poll),
        outcome: canStateOutcome(access, found.ctx, found.poll),
        edit: canEditPoll(access, found.ctx, found.poll)
      }
    })))

/** The polls of the group's threads the caller may read, where ListGroupPolls allowed it. */
const groupPolls = Effect.fnUntraced(function*(access: Access, group: Group, scope: TopicScope, status: PollStatus, page: Page): Effect.fn.Return<Paged<PollView>, never, Store | Permit<"ListGroupPolls">> {
  yield* ListGroupPolls.needed
  const store = yield* Store
  const polls = yield* store.polls.inGroup(scope, group.id, status, page)
  const total = yield* store.polls.countInGroup(scope, group.id, status)
  return { records: yield* viewPolls(access, polls), total }
})

/** GET /polls: the group's polls the caller may see; group unknown → 404, invisible group → 403. */
export const listPolls = Effect.fnUntraced(function*(
  access: Access,
  groupId: Id,
  status: PollStatus,
  page: Page
): Effect.fn.Return<Paged<PollView>, NotFound | Forbidden, Store> {
  const store = yield* Store
  const group = yield* store.groups.byId(groupId)
  if (group === undefined) return yield* notFound(`Group ${groupId} not found`)
  const scope = groupTopicScope(access, group)
  return yield* ListGroupPolls.check([scope], () => forbidden("Not authorized to show Group."))(groupPolls(access, group, scope, status, page))
})

/** Groups and people that poll documents side-load, in one query per type. */
export const related = Effect.fnUntraced(function*(
  access: Access,
  views: ReadonlyArray<PollView>,
  want: { groups: boolean; users: boolean }
): Effect.fn.Return<{ groups: ReadonlyArray<GroupView>; users: ReadonlyArray<User> }, never, Store> {
  const store = yield* Store
  const groups = want.groups ? yield* viewGroupsById(views.flatMap((v) => (v.poll.group_id === null ? [] : [v.poll.group_id]))) : []
  const userIds = new Set<Id>([access.user.id])
  for (const v of views) {
    userIds.add(v.poll.author_id)
    if (v.outcome !== undefined) userIds.add(v.outcome.author_id)
    // the voters named in results (the first few per option)
    for (const r of v.results?.options ?? []) for (const id of r.voter_ids) userIds.add(id)
  }
  const users = want.users ? yield* store.users.byIds([...userIds]) : []
  return { groups, users }
})

/** Home's "Waiting for your vote": open polls where the caller holds a ballot not yet cast (holding one, they may see it). */
export const awaitingVote = (access: Access, limit = 50): Effect.Effect<ReadonlyArray<Poll>, never, Store> =>
  Effect.flatMap(Store, (store) => store.polls.awaitingVote(access.user.id, limit))
