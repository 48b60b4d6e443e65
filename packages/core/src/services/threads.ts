/**
 * Threads (topics): loading what the visibility rule needs, appending thread items, bringing people
 * into a thread, and the read side of /threads (list, show, items, markdown).
 */
import { Effect } from "effect"
import type {
  Comment,
  Discussion,
  Group,
  Id,
  Page,
  Reaction,
  ThreadItem,
  ThreadItemKind,
  Topic,
  User
} from "../domain/records.js"
import { type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import { type Access, isMember } from "../rules/access.js"
import { fullName } from "../rules/groups.js"
import { bodyMarkdown, renderThreadMarkdown } from "../rules/threadMarkdown.js"
import { headlineFor } from "../rules/webhookPayloads.js"
import { canShowTopic, type TopicContext, topicScope } from "../rules/topics.js"
import { displayName, normaliseEmail } from "../rules/users.js"
import { nowIso, type Paged } from "./common.js"
import { publishEvent } from "./events.js"
import { recordThreadMessage, type ThreadMessage } from "./mail.js"
import { userForEmail } from "./memberships.js"
import type { Outcome, Stance } from "../domain/polls.js"
import { type PollView, viewPolls } from "./polls.js"

/** The thread, its group and the caller's reader row: what `rules/topics.ts` decides on. */
export const topicContext = (access: Access, topic: Topic): Effect.Effect<TopicContext, never, Store> =>
  Effect.gen(function*() {
    const store = yield* Store
    const group = topic.group_id === null ? undefined : yield* store.groups.byId(topic.group_id)
    const reader = yield* store.readers.find(topic.id, access.user.id)
    return { topic, group, reader }
  })

export const topicById = (id: Id): Effect.Effect<Topic, NotFound, Store> =>
  Effect.flatMap(Store, (store) =>
    Effect.flatMap(store.topics.byId(id), (t) => (t === undefined ? Effect.fail(notFound()) : Effect.succeed(t))))

export interface NewItem {
  readonly topic: Topic
  readonly kind: ThreadItemKind
  readonly itemable_type: ThreadItem["itemable_type"]
  readonly itemable_id: Id
  /** null for an item that must name nobody (an anonymous vote) */
  readonly actor: User | null
  /** null: the thread's own (root) item */
  readonly parent: ThreadItem | null
  /** whether the item counts as activity (moves the thread up the lists) */
  readonly bump: boolean
}

/** Appends an item to the thread's stream; call inside the writing transaction. */
export const recordItem = (item: NewItem): Effect.Effect<ThreadItem, never, Store> =>
  Effect.gen(function*() {
    const store = yield* Store
    const now = yield* nowIso
    const appended = yield* store.items.append({
      topic_id: item.topic.id,
      kind: item.kind,
      itemable_type: item.itemable_type,
      itemable_id: item.itemable_id,
      actor_id: item.actor?.id ?? null,
      created_at: now,
      parent: item.parent,
      root: item.parent === null
    })
    if (item.bump) yield* store.topics.update(item.topic.id, { last_activity_at: now, updated_at: now })
    return appended
  })

/** The root item of a thread (sequence 0). */
export const rootItem = (topic: Topic): Effect.Effect<ThreadItem, never, Store> =>
  Effect.flatMap(Store, (store) =>
    Effect.map(store.items.byItemable(topic.topicable_type, topic.topicable_id!), (i) => i!))

/** The parent item of a reply: the item replied to, moved up to stay within the thread's max_depth. */
export const replyParent = (topic: Topic, parent: ThreadItem): Effect.Effect<ThreadItem, never, Store> =>
  Effect.gen(function*() {
    const store = yield* Store
    let p = parent
    while (p.depth >= topic.max_depth && p.parent_id !== null) p = (yield* store.items.byId(p.parent_id))!
    return p
  })

export interface Recipients {
  readonly audience?: "group" | null
  readonly userIds?: ReadonlyArray<Id>
  readonly emails?: ReadonlyArray<string>
  readonly message?: string | null
}

export const hasRecipients = (r: Recipients) =>
  r.audience === "group" || (r.userIds?.length ?? 0) > 0 || (r.emails?.length ?? 0) > 0

/**
 * The webhook event of a thread write (decisions.md §1: discussion create → new_discussion, PATCH →
 * discussion_edited, comment → new_comment), published in the writing transaction.
 */
export const threadEvent = (
  kind: "new_discussion" | "discussion_edited" | "new_comment",
  topic: Topic,
  discussion: Discussion,
  actor: User,
  about: { readonly comment?: Comment; readonly message?: string | null }
): Effect.Effect<void, never, Store> =>
  publishEvent({
    kind,
    group_id: topic.group_id,
    actor_id: actor.id,
    eventable_type: about.comment === undefined ? "Discussion" : "Comment",
    eventable_id: about.comment?.id ?? discussion.id,
    message: {
      headline: headlineFor(kind, displayName(actor)),
      title: discussion.title,
      path: about.comment === undefined ? `/d/${discussion.key}` : `/d/${discussion.key}/comment/${about.comment.id}`,
      body: (about.comment === undefined
        ? bodyMarkdown(discussion.description, discussion.description_format)
        : bodyMarkdown(about.comment.body, about.comment.body_format)) || null,
      recipient_message: about.message ?? null
    }
  })

/**
 * Brings people into a thread (Loomio's announce): `audience: "group"` notifies every human member;
 * listed users and addresses are notified when they are members, otherwise invited as guests of the
 * thread. Each person gets one message in the mail outbox, never the actor. Call inside the transaction:
 * an unknown user id fails the whole write.
 */
export const announce = (
  topic: Topic,
  group: Group | undefined,
  actor: User,
  kind: "new_discussion" | "discussion_edited",
  title: string,
  recipients: Recipients
): Effect.Effect<void, Invalid, Store> =>
  Effect.gen(function*() {
    const store = yield* Store
    const now = yield* nowIso
    const done = new Set<Id>([actor.id])
    const message: Omit<ThreadMessage, "kind"> = { group, title, actor, message: recipients.message ?? null }
    const bring = (user: User, member: boolean) =>
      Effect.gen(function*() {
        if (done.has(user.id) || user.deactivated_at !== null) return
        done.add(user.id)
        yield* store.readers.upsert({ topic_id: topic.id, user_id: user.id, inviter_id: actor.id, guest: !member, created_at: now })
        yield* recordThreadMessage(user, { ...message, kind: member ? kind : "thread_invitation" })
      })
    const isGroupMember = (user: User) =>
      group === undefined ? Effect.succeed(false) : Effect.map(store.memberships.activeFor(group.id, user.id), (m) => m !== undefined)

    if (recipients.audience === "group" && group !== undefined) {
      const members = (yield* store.memberships.activeEmails(group.id)).filter((m) => m.membership.accepted_at !== null)
      for (const user of yield* store.users.byIds(members.map((m) => m.membership.user_id))) {
        if (!user.bot) yield* bring(user, true)
      }
    }
    for (const id of recipients.userIds ?? []) {
      const user = yield* store.users.byId(id)
      if (user === undefined) return yield* invalid("recipient_user_ids", `${id} is not a user`)
      yield* bring(user, yield* isGroupMember(user))
    }
    for (const email of recipients.emails ?? []) {
      const user = yield* userForEmail(normaliseEmail(email))
      yield* bring(user, yield* isGroupMember(user))
    }
  })

/** A visible thread, or 404 (an invisible thread is not found, as Loomio). */
export const findThread = (access: Access, topicId: Id): Effect.Effect<TopicContext, NotFound, Store> =>
  Effect.gen(function*() {
    const ctx = yield* topicContext(access, yield* topicById(topicId))
    if (!canShowTopic(access, ctx)) return yield* notFound()
    return ctx
  })

/** The groups where membership widens what the caller reads: their own groups and those groups' subgroups. */
export const candidateGroups = (access: Access) =>
  Effect.gen(function*() {
    const store = yield* Store
    const mine = yield* store.groups.byIds([...access.memberships.keys()])
    const children = yield* store.groups.children(mine.map((g) => g.id))
    return [...mine, ...children.filter((c) => !isMember(access, c.id))]
  })

/** GET /threads: every thread the caller may read, latest activity first. */
export const listThreads = (access: Access, page: Page): Effect.Effect<Paged<Topic>, never, Store> =>
  Effect.gen(function*() {
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
  readonly reactions: ReadonlyArray<Reaction>
  readonly users: ReadonlyArray<User>
  /** the thread's polls as the reader sees them (results null while hidden) */
  readonly polls: ReadonlyArray<PollView>
  /** the ballots behind the items the reader may see: their own, others' once results show (never in anonymous polls) */
  readonly stances: ReadonlyArray<Stance>
  readonly outcomes: ReadonlyArray<Outcome>
}

export const threadContents = (access: Access, topicId: Id): Effect.Effect<ThreadContents, NotFound, Store> =>
  Effect.gen(function*() {
    const store = yield* Store
    const { group, topic } = yield* findThread(access, topicId)
    const [discussion] = yield* store.discussions.byTopicIds([topic.id])
    const allItems = yield* store.items.ofTopic(topic.id)
    const ofType = (type: ThreadItem["itemable_type"]) => allItems.filter((i) => i.itemable_type === type).map((i) => i.itemable_id)
    const comments = yield* store.comments.byIds(ofType("Comment"))
    const reactions = yield* store.reactions.ofTopic(topic.id)
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
    return { topic, group, discussion, items, comments, reactions, users, polls, stances, outcomes }
  })

/** GET /threads/{id}/markdown: discussions and standalone polls alike. */
export const threadMarkdown = (access: Access, topicId: Id): Effect.Effect<string, NotFound, Store> =>
  Effect.gen(function*() {
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
