/**
 * The thread kernel every writer uses: loading what the visibility rule needs, appending thread items,
 * the webhook event of a thread write, and bringing people into a thread. The read side of /threads
 * is threads/read.ts (it gathers polls; this module must not, so polls can use it).
 */
import { Effect } from "effect"
import type { Comment, Discussion, Group, Id, ThreadItem, ThreadItemKind, Topic, TopicReader, User } from "../../domain/records.js"
import { type Invalid, invalid, notFound, type NotFound } from "../../errors.js"
import { type Appended, Store } from "../../ports/store.js"
import { type Access, isMember, makeAccess } from "../../rules/access.js"
import { canInviteGuests, canNotifyGroup } from "../../rules/groups.js"
import { isGroupAudience } from "../../rules/recipients.js"
import { bodyMarkdown } from "../../rules/threadMarkdown.js"
import { headlineFor } from "../../rules/webhookPayloads.js"
import type { TopicContext } from "../../rules/topics.js"
import { ShowTopic } from "../../policies.js"
import { displayName, normaliseEmail } from "../../rules/users.js"
import { nowIso } from "../common.js"
import { publishEvent, tellLive } from "../events.js"
import { rangesAfterReading, type Ranges } from "../../rules/readState.js"
import { recordThreadMessage, type ThreadMessage } from "../mail.js"
import { userForEmail } from "../memberships.js"

/** The thread, its group and the caller's reader row: what `rules/topics.ts` decides on. */
export const topicContext = Effect.fnUntraced(function*(access: Access, topic: Topic): Effect.fn.Return<TopicContext, NotFound, Store> {
  const store = yield* Store
  const group = topic.group_id === null ? undefined : yield* store.groups.byId(topic.group_id)
  // a deleted group's threads are not found by anyone (decisions §12: gone at once, purged later)
  if (group?.archived_at != null) return yield* notFound()
  const reader = yield* store.readers.find(topic.id, access.user.id)
  return { topic, group, reader }
})

/**
 * A thread by id; in a write, locked by the same statement (`topics.byIdLocked`): writes to one thread (its items' sequence,
 * its counters, its polls' ballots) check and write in turn, on every server.
 */
export const topicById = (id: Id): Effect.Effect<Topic, NotFound, Store> =>
  Effect.flatMap(Store, (store) =>
    Effect.flatMap(store.topics.byIdLocked(id), (t) => (t === undefined ? Effect.fail(notFound()) : Effect.succeed(t))))

export interface NewItem {
  readonly topic: Topic
  readonly kind: ThreadItemKind
  readonly itemable_type: ThreadItem["itemable_type"]
  readonly itemable_id: Id
  /** null for an item that must name nobody (an anonymous vote) */
  readonly actor: User | null
  /** null: this is the thread's own (root) item; "thread": under the thread's own item (sequence 0) */
  readonly parent: ThreadItem | "thread" | null
  /** whether the item counts as activity (moves the thread up the lists) */
  readonly bump: boolean
}

/**
 * Appends an item to the thread's stream, read by its author (writing counts as reading), and tells the live pages;
 * call inside the writing transaction (which holds the thread: the author's reader is read and written in turn).
 */
export const recordItem = Effect.fnUntraced(function*(item: NewItem): Effect.fn.Return<RecordedItem, never, Store> {
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
    bump: item.bump === true
  })
  // starting the thread (its own item, 0) counts as having read it too. Read here, in the transaction that holds the
  // thread: a reader read before it may be older than another write's (the author's other comment in the same batch)
  const sequence = appended.item.sequence_id
  const actorReader = item.actor === null
    ? undefined
    : yield* readItems(item.topic.id, item.actor.id, yield* store.readers.find(item.topic.id, item.actor.id), sequence > 0 ? [[sequence, sequence]] : [])
  yield* tellLive("thread", { group_id: item.topic.group_id, topic_id: item.topic.id })
  return Object.assign({}, appended, { actorReader })
})

/** An appended item, and its actor's reader as the write leaves it (the answer's reader fields need not read it again). */
export interface RecordedItem extends Appended {
  readonly actorReader: TopicReader | undefined
}

/**
 * The person's reader with `seen` read, written in one statement where anything changes (or, `always`, where only the
 * time does), guarded by the ranges it was read with (a concurrent change is never lost); the reader as it is left.
 * Call inside a transaction.
 */
export const readItems = Effect.fnUntraced(function*(topicId: Id, userId: Id, reader: TopicReader | undefined, seen: Ranges, { always = false } = {}) {
  const ranges = rangesAfterReading(reader, seen) ?? (always ? reader?.read_ranges ?? "" : undefined)
  if (ranges === undefined) return reader
  const store = yield* Store
  const at = yield* nowIso
  yield* store.readers.markRead({ topic_id: topicId, user_id: userId, ranges, previous: reader?.read_ranges ?? null, at })
  return Object.assign({}, reader ?? newReader(topicId, userId, at), { read_ranges: ranges, last_read_at: at })
})

/** A reader row as its first write makes it (the store gives it its id; nothing answers by it). */
export const newReader = (topicId: Id, userId: Id, at: string): TopicReader => ({
  id: 0, topic_id: topicId, user_id: userId, inviter_id: null, guest: false, revoked_at: null, created_at: at, last_read_at: null, read_ranges: null, dismissed_at: null
})

/** The parent item of a reply: the item replied to, moved up to stay within the thread's max_depth. */
export const replyParent = Effect.fnUntraced(function*(topic: Topic, parent: ThreadItem): Effect.fn.Return<ThreadItem, never, Store> {
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

/** The recipients a write names in its `recipient_*` fields (discussion and poll inputs alike). */
export const recipientsOf = (input: {
  readonly recipient_audience?: "group" | null | undefined
  readonly recipient_user_ids?: ReadonlyArray<Id> | undefined
  readonly recipient_emails?: ReadonlyArray<string> | undefined
  readonly recipient_message?: string | null | undefined
}): Recipients => ({
  audience: input.recipient_audience ?? null,
  userIds: input.recipient_user_ids ?? [],
  emails: input.recipient_emails ?? [],
  message: input.recipient_message ?? null
})

export const hasRecipients = (r: Recipients) =>
  r.audience === "group" || (r.userIds?.length ?? 0) > 0 || (r.emails?.length ?? 0) > 0

/**
 * The webhook event of a thread write (decisions.md §1: discussion create → new_discussion, PATCH →
 * discussion_edited, comment → new_comment), published in the writing transaction.
 */
export const threadEvent = (
  kind: "new_discussion" | "discussion_edited" | "discussion_moved" | "new_comment",
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

/** A person a write names as a recipient, and whether they belong to the thread's group. */
export interface Recipient {
  readonly user: User
  readonly member: boolean
}

/**
 * The people a write names (`recipient_audience`, `recipient_user_ids`, `recipient_emails`), once each, in
 * that order: the group audience is its accepted human members (rules/recipients.ts); an address without
 * an account gets one; deactivated people and (unless asked) the actor are left out. An unknown user id
 * fails the write.
 * Shared by discussions (announce) and polls (invitations to vote).
 */
export const resolveRecipients = Effect.fnUntraced(function*(
  group: Group | undefined,
  actor: User,
  r: Recipients,
  { includeActor = false } = {}
): Effect.fn.Return<ReadonlyArray<Recipient>, Invalid, Store> {
  const store = yield* Store
  const out: Array<Recipient> = []
  const seen = new Set<Id>(includeActor ? [] : [actor.id])
  const memberOf = (user: User) =>
    group === undefined ? Effect.succeed(false) : Effect.map(store.memberships.activeFor(group.id, user.id), (m) => m !== undefined)
  const add = (user: User, member: boolean) => {
    if (seen.has(user.id) || user.deactivated_at !== null) return
    seen.add(user.id)
    out.push({ user, member })
  }
  if (r.audience === "group" && group !== undefined) {
    const members = yield* store.memberships.activeEmails(group.id)
    const users = new Map((yield* store.users.byIds(members.map((m) => m.membership.user_id))).map((u) => [u.id, u]))
    for (const { membership } of members) {
      const user = users.get(membership.user_id)
      if (user !== undefined && isGroupAudience(membership, user)) add(user, true)
    }
  }
  for (const id of r.userIds ?? []) {
    const user = yield* store.users.byId(id)
    if (user === undefined) return yield* invalid("recipient_user_ids", `${id} is not a user`)
    add(user, yield* memberOf(user))
  }
  for (const email of r.emails ?? []) {
    const user = yield* userForEmail(normaliseEmail(email))
    add(user, yield* memberOf(user))
  }
  if (group !== undefined) {
    // the group's settings say who may notify everyone, and who may bring in people from outside it
    const mine = yield* store.memberships.activeFor(group.id, actor.id)
    const acting = makeAccess(actor, mine === undefined ? [] : [mine])
    if (r.audience === "group" && !canNotifyGroup(acting, group)) {
      return yield* invalid("recipient_audience", "only the group's administrators may notify everyone in this group")
    }
    if (out.some((x) => !x.member) && !canInviteGuests(acting, group)) {
      return yield* invalid(r.emails?.length ? "recipient_emails" : "recipient_user_ids", "only the group's administrators may invite people from outside the group here")
    }
  }
  return out
})

/**
 * Brings people into a thread (Loomio's announce): members are notified, others invited as guests of the
 * thread. Each person gets one message in the mail outbox. Call inside the transaction.
 */
export const announce = Effect.fnUntraced(function*(
  topic: Topic,
  group: Group | undefined,
  actor: User,
  kind: "new_discussion" | "discussion_edited",
  about: { readonly title: string; readonly path: string },
  recipients: Recipients
): Effect.fn.Return<Set<Id>, Invalid, Store> {
  const store = yield* Store
  const now = yield* nowIso
  const message: Omit<ThreadMessage, "kind"> = { group, ...about, actor, message: recipients.message ?? null, topicId: topic.id }
  const told = new Set<Id>()
  for (const { member, user } of yield* resolveRecipients(group, actor, recipients)) {
    yield* store.readers.upsert({ topic_id: topic.id, user_id: user.id, inviter_id: actor.id, guest: !member, created_at: now })
    yield* recordThreadMessage(user, member ? { ...message, kind } : { ...message, kind: "thread_invitation", invitation: { kind: "thread", topic } })
    told.add(user.id)
  }
  return told
})

/** A visible thread, or 404 (an invisible thread is not found, as Loomio). */
export const findThread = Effect.fnUntraced(function*(access: Access, topicId: Id): Effect.fn.Return<TopicContext, NotFound, Store> {
  const ctx = yield* topicContext(access, yield* topicById(topicId))
  return yield* ShowTopic.check([access, ctx], () => notFound())(Effect.as(ShowTopic.needed, ctx))
})

/** The groups where membership widens what the caller reads: their own groups and those groups' subgroups. */
export const candidateGroups = Effect.fnUntraced(function*(access: Access) {
  const store = yield* Store
  const mine = yield* store.groups.byIds([...access.memberships.keys()])
  const children = yield* store.groups.children(mine.map((g) => g.id))
  return [...mine, ...children.filter((c) => !isMember(access, c.id))]
})

