/** The read side of /threads: the threads a caller may read, one thread's contents, and its Markdown. */
import type { AttachedFile } from "../../domain/files.js"
import { filesOf } from "../attachments.js"
import { Effect } from "effect"
import type { Outcome, Stance } from "../../domain/polls.js"
import type { Comment, Discussion, Group, Id, Page, Reaction, ThreadItem, Topic, User } from "../../domain/records.js"
import type { NotFound } from "../../errors.js"
import { Store } from "../../ports/store.js"
import type { Access } from "../../rules/access.js"
import { fullName } from "../../rules/groups.js"
import { renderThreadMarkdown } from "../../rules/threadMarkdown.js"
import { topicScope, type TopicContext } from "../../rules/topics.js"
import type { Paged } from "../common.js"
import { type PollView, viewPolls } from "../polls/read.js"
import { candidateGroups, findThread, topicContext } from "./kernel.js"
import { canNotifyGroup } from "../../rules/groups.js"
import { canReact } from "../../rules/comments.js"
import type { Forbidden } from "../../errors.js"
import { canCreateComment, canDeleteComment, canEditComment } from "../../rules/comments.js"
import { canEditDiscussion } from "../../rules/discussions.js"
import { canStartPoll } from "../../rules/polls.js"
import { showDiscussion } from "../discussions.js"
import { markShown } from "../reading.js"
import { readStateOf } from "../../rules/readState.js"

/** GET /threads: every thread the caller may read, latest activity first. */
export const listThreads = Effect.fnUntraced(function*(access: Access, page: Page): Effect.fn.Return<Paged<Topic>, never, Store> {
  const store = yield* Store
  const scope = topicScope(access, yield* candidateGroups(access))
  const records = yield* store.topics.visible(scope, {}, page)
  const total = yield* store.topics.countVisible(scope, {})
  return { records, total }
})

/** Everything in a thread, loaded in one query per record type. */
export interface ThreadContents {
  readonly topic: Topic
  readonly group: Group | undefined
  /** undefined for a standalone poll's thread */
  readonly discussion: Discussion | undefined
  readonly items: ReadonlyArray<ThreadItem>
  readonly comments: ReadonlyArray<Comment>
  /** the comments' files, by comment, each in its order */
  readonly commentFiles: ReadonlyMap<Id, ReadonlyArray<AttachedFile>>
  readonly reactions: ReadonlyArray<Reaction>
  readonly users: ReadonlyArray<User>
  /** the thread's polls as the reader sees them (results null while hidden) */
  readonly polls: ReadonlyArray<PollView>
  /** the ballots behind the items the reader may see: their own, others' once results show (never in anonymous polls) */
  readonly stances: ReadonlyArray<Stance>
  readonly outcomes: ReadonlyArray<Outcome>
}

export const threadContents = Effect.fnUntraced(function*(access: Access, topicId: Id): Effect.fn.Return<ThreadContents, NotFound, Store> {
  const store = yield* Store
  const found = yield* findThread(access, topicId)
  return yield* contentsOf(access, found.topic, found.group, yield* store.items.ofTopic(found.topic.id), undefined)
})

/**
 * What `items` hold, as the reader may see it. `reactions`: those of the whole thread (undefined: read for these
 * items alone, as a page of a long thread is).
 */
const contentsOf = Effect.fnUntraced(function*(
  access: Access,
  topic: Topic,
  group: Group | undefined,
  allItems: ReadonlyArray<ThreadItem>,
  reactionsOfThread: ReadonlyArray<Reaction> | undefined
): Effect.fn.Return<ThreadContents, never, Store> {
  const store = yield* Store
  const [discussion] = yield* store.discussions.byTopicIds([topic.id])
  const ofType = (type: ThreadItem["itemable_type"]) => allItems.filter((i) => i.itemable_type === type).map((i) => i.itemable_id)
  const comments = yield* store.comments.byIds(ofType("Comment"))
  const commentFiles = yield* filesOf("Comment", comments.map((c) => c.id))
  const reactions = reactionsOfThread ?? (yield* store.reactions.ofTopic(topic.id))
  const polls = yield* viewPolls(access, yield* store.polls.ofTopics([topic.id]))
  const shown = new Map(polls.map((v) => [v.poll.id, v]))
  // hide_results and anonymous hold in the thread too: a ballot item shows only where the ballot may be seen
  const stances = (yield* store.stances.byIds(ofType("Stance"))).filter((st) => {
    const v = shown.get(st.poll_id)
    return v !== undefined && !v.poll.anonymous && (st.participant_id === access.user.id || v.results !== null)
  })
  const visibleStances = new Set(stances.map((st) => st.id))
  const outcomes = (yield* store.outcomes.byIds(ofType("Outcome"))).filter((o) => shown.has(o.poll_id))
  const items = allItems.filter((i) => i.itemable_type !== "Stance" || visibleStances.has(i.itemable_id))
  const userIds = new Set<Id>(discussion === undefined ? [] : [discussion.author_id])
  for (const i of items) if (i.actor_id !== null) userIds.add(i.actor_id)
  for (const c of comments) userIds.add(c.author_id)
  for (const r of reactions) userIds.add(r.user_id)
  for (const v of polls) {
    userIds.add(v.poll.author_id)
    for (const r of v.results?.options ?? []) for (const id of r.voter_ids) userIds.add(id)
  }
  for (const o of outcomes) userIds.add(o.author_id)
  const users = yield* store.users.byIds([...userIds])
  return { topic, group, discussion, items, comments, commentFiles, reactions, users, polls, stances, outcomes }
})

/**
 * This many items on a page of a thread (decisions §9, amended, "at most 100"): a long thread is read a page at a
 * time. 30, not 100: a page's cost is its items (about 13 µs and 0.9 KB each), and at 100 a thread page answered in
 * p99 130–270 ms at 32 connections against §13's 50 (bench/pages.js), at 40 in 41–53; forums that render on the
 * server page by 20–50.
 */
export const THREAD_PAGE = 30

/** The top-level place an item is under (its comment's, for a reply): a page never splits one. */
const topOf = (positionKey: string) => positionKey.slice(0, 5)

/** A page of a thread's items: where it starts, and where the pages before and after it start (sequence ids). */
export interface ThreadWindow {
  readonly items: ReadonlyArray<ThreadItem>
  /** undefined: this is the first page; null: the earlier page is the thread's start */
  readonly earlier: number | null | undefined
  readonly later: number | undefined
}

/**
 * The page of a thread that holds the item `fromSequence` (its comment's, for a reply), or the first: at most
 * THREAD_PAGE items in the tree's order, never ending inside a comment's replies (one comment with more replies
 * than a page is a page of its own). Read by position, through the (thread, position) index: a page of a long
 * thread reads no more than a page of a short one.
 */
export const threadWindow = Effect.fnUntraced(function*(topicId: Id, fromSequence: number | undefined): Effect.fn.Return<ThreadWindow, never, Store> {
  const store = yield* Store
  const at = fromSequence === undefined ? undefined : yield* store.items.bySequence(topicId, fromSequence)
  const start = at?.position_key == null ? "" : topOf(at.position_key)
  const rows = yield* store.items.fromPosition(topicId, start, THREAD_PAGE + 1)
  let items = rows
  let laterKey: string | undefined
  if (rows.length > THREAD_PAGE) {
    const nextTop = topOf(rows[THREAD_PAGE]!.position_key!)
    const whole = rows.filter((r) => topOf(r.position_key!) < nextTop)
    if (whole.length > 0) {
      items = whole
      laterKey = nextTop
    } else {
      items = yield* store.items.between(topicId, nextTop, `${nextTop}.`)
      laterKey = (yield* store.items.fromPosition(topicId, `${nextTop}.`, 1)).map((r) => topOf(r.position_key!))[0]
    }
  }
  const sequenceAt = (key: string) => Effect.map(store.items.atPosition(topicId, key), (item) => item?.sequence_id)
  let earlier: number | null | undefined
  if (start !== "") {
    const before = yield* store.items.beforePosition(topicId, start, THREAD_PAGE)
    if (before.length > 0) earlier = before.length < THREAD_PAGE ? null : (yield* sequenceAt(topOf(before.at(-1)!.position_key!))) ?? null
  }
  return { items, earlier, later: laterKey === undefined ? undefined : yield* sequenceAt(laterKey) }
})

/** How many top-level items a thread read before shows ahead of its first unread one, for context (decisions §13). */
const UNREAD_CONTEXT = 2

/** Where a thread read before opens: a few top-level items before its first unread item (undefined: at the start). */
const unreadOpening = Effect.fnUntraced(function*(topicId: Id, firstUnread: number | undefined): Effect.fn.Return<number | undefined, never, Store> {
  if (firstUnread === undefined) return undefined
  const store = yield* Store
  const at = yield* store.items.fromSequence(topicId, firstUnread)
  if (at?.position_key == null) return undefined
  const top = topOf(at.position_key)
  // the items before it, nearest first: their top-level places, the UNREAD_CONTEXT-th (or the furthest there is)
  const tops = [...new Set((yield* store.items.beforePosition(topicId, top, THREAD_PAGE)).map((i) => topOf(i.position_key!)))]
  const key = tops[UNREAD_CONTEXT - 1] ?? tops.at(-1) ?? top
  return (yield* store.items.atPosition(topicId, key))?.sequence_id
})

/** GET /threads/{id}/markdown: discussions and standalone polls alike. */
export const threadMarkdown = Effect.fnUntraced(function*(access: Access, topicId: Id): Effect.fn.Return<string, NotFound, Store> {
  const store = yield* Store
  const t = yield* threadContents(access, topicId)
  const parent = t.group?.parent_id == null ? undefined : yield* store.groups.byId(t.group.parent_id)
  return renderThreadMarkdown({
    topic: t.topic,
    discussion: t.discussion,
    groupName: t.group === undefined ? undefined : fullName(t.group, parent),
    items: t.items,
    comments: new Map(t.comments.map((c) => [c.id, c])),
    reactions: t.reactions,
    users: new Map(t.users.map((u) => [u.id, u])),
    polls: new Map(t.polls.map((v) => [v.poll.id, { poll: v.poll, options: v.options, results: v.results }])),
    stances: new Map(t.stances.map((st) => [st.id, st])),
    outcomes: new Map(t.outcomes.map((o) => [o.id, o]))
  })
})

/** What the rules let a reader do in a discussion's thread (pages show a control only when its rule allows it). */
export interface DiscussionRights {
  readonly discussion: Discussion
  readonly ctx: TopicContext
  readonly may: {
    readonly comment: boolean
    readonly close: boolean
    readonly reopen: boolean
    readonly poll: boolean
    readonly pin: boolean
    /** **Edit thread** and **Move thread** (the EditDiscussion rule) */
    readonly edit: boolean
    /** notify everyone in the thread's group (members_can_announce) */
    readonly announce: boolean
    /** react under its comments */
    readonly react: boolean
  }
}

/** A discussion the reader may see, with their rights in it, without its contents. */
export const discussionRights = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<DiscussionRights, NotFound | Forbidden, Store> {
  const { discussion, topic } = yield* showDiscussion(access, ref)
  const ctx = yield* topicContext(access, topic)
  const edit = canEditDiscussion(access, ctx, discussion)
  const closed = topic.closed_at !== null
  return {
    discussion,
    ctx,
    may: {
      comment: canCreateComment(access, ctx, discussion),
      close: edit && !closed,
      reopen: edit && closed,
      poll: canStartPoll(access, ctx.group, ctx),
      pin: edit,
      edit,
      announce: ctx.group !== undefined && canNotifyGroup(access, ctx.group),
      react: canReact(access, ctx)
    }
  }
})

/** A discussion's thread as its page shows it, with what the rules let the reader do there. */
export interface DiscussionThread extends ThreadContents, Omit<DiscussionRights, "ctx"> {
  readonly discussion: Discussion
  /** the comments the reader may edit, and delete */
  readonly editable: ReadonlySet<Id>
  readonly deletable: ReadonlySet<Id>
  /** where the pages before and after this one start (ThreadWindow) */
  readonly earlier: number | null | undefined
  readonly later: number | undefined
  /** the reader's first item not read before this page was shown, when this page holds it */
  readonly firstUnread: number | undefined
}

/**
 * A page of a discussion's thread, with the reader's rights: the page holding `fromSequence`, else (decisions §13) a
 * few items before the first the reader has not read, else the first. The items shown are read from now on.
 */
export const discussionThread = Effect.fnUntraced(function*(access: Access, ref: string, fromSequence?: number): Effect.fn.Return<DiscussionThread, NotFound | Forbidden, Store> {
  const { ctx, discussion, may } = yield* discussionRights(access, ref)
  const { firstUnread } = readStateOf(ctx.topic, ctx.reader)
  const window = yield* threadWindow(ctx.topic.id, fromSequence ?? (yield* unreadOpening(ctx.topic.id, firstUnread)))
  const reactions = yield* reactionsOfItems(window.items)
  const contents = yield* contentsOf(access, ctx.topic, ctx.group, window.items, reactions)
  yield* markShown(access, ctx.topic, ctx.reader, window.items)
  return Object.assign({}, contents, {
    earlier: window.earlier,
    later: window.later,
    firstUnread: firstUnread !== undefined && window.items.some((i) => i.sequence_id >= firstUnread) ? firstUnread : undefined,
    discussion,
    may,
    editable: new Set(contents.comments.filter((c) => canEditComment(access, ctx, discussion, c)).map((c) => c.id)),
    deletable: new Set(contents.comments.filter((c) => canDeleteComment(access, ctx, discussion, c)).map((c) => c.id))
  })
})

/** The reactions under these items' records. */
const reactionsOfItems = Effect.fnUntraced(function*(items: ReadonlyArray<ThreadItem>): Effect.fn.Return<ReadonlyArray<Reaction>, never, Store> {
  const store = yield* Store
  const out: Array<Reaction> = []
  for (const type of ["Comment", "Poll", "Stance", "Outcome", "Discussion"] as const) {
    const ids = items.filter((i) => i.itemable_type === type).map((i) => i.itemable_id)
    if (ids.length > 0) out.push(...(yield* store.reactions.ofReactables(type, ids)))
  }
  return out
})

/** The people a page names (voters and authors it already may show), by id. */
export const usersByIds = (ids: ReadonlyArray<Id>): Effect.Effect<ReadonlyArray<User>, never, Store> =>
  ids.length === 0 ? Effect.succeed([]) : Effect.flatMap(Store, (store) => store.users.byIds(ids))

/**
 * Where a record's item is in its thread: the `?from=` of the page that shows it (its sequence id), or undefined where
 * the thread's first page shows it (a short thread's address stays as it was).
 */
export const pageOf = Effect.fnUntraced(function*(type: ThreadItem["itemable_type"], id: Id): Effect.fn.Return<number | undefined, never, Store> {
  const store = yield* Store
  const item = yield* store.items.byItemable(type, id)
  if (item === undefined) return undefined
  const first = yield* threadWindow(item.topic_id, undefined)
  return first.items.some((i) => i.id === item.id) ? undefined : item.sequence_id
})
