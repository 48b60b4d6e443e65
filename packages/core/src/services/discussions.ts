/** Discussions: create, read, list, edit, close/reopen, soft delete. Each write is one transaction with its thread item and mail. */
import { attachFiles } from "./attachments.js"
import { Effect } from "effect"
import type { Discussion, Group, Id, Page, ThreadStatus, Topic, User } from "../domain/records.js"
import { forbidden, type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { changedBody, cleanBody } from "../rules/bodies.js"
import { DeleteDiscussion, EditDiscussion, type Permit, ShowGroup, ShowTopic, StartDiscussion } from "../policies.js"
import { groupTopicScope, privacyErrors, privateDefault, type TopicContext } from "../rules/topics.js"
import { findGroup, type GroupView, viewGroupsById } from "./groups.js"
import { ensureTags, recordVersion } from "./threadAdmin.js"
import { tagNamesFrom, threadTagsErrors } from "../rules/tags.js"
import { checkEmails, nowIso, type Paged } from "./common.js"
import { newRecordKey } from "../rules/keys.js"
import { announce, hasRecipients, recipientsOf, recordItem, threadEvent, topicById, topicContext } from "./threads/kernel.js"
import { recordRef } from "../domain/refs.js"
import { plainLineErrors } from "../rules/values.js"
import * as Inputs from "../domain/inputs.js"
import { notifyMentions } from "./notify.js"

/** A discussion as every reader gets it: the record and its thread. */
export interface DiscussionView {
  readonly discussion: Discussion
  readonly topic: Topic
}

/** What creating or editing a discussion takes (declared once in domain/inputs.ts). */
export type DiscussionInput = typeof Inputs.DiscussionInput.Type


/**
 * By numeric id or key; a key may carry a `-slug` suffix (Loomio's ModelLocator). With `readerOf`, that person's
 * place in the thread is read with it (kept for the request's access check: `topicContext`).
 */
export const findDiscussion = Effect.fnUntraced(function*(ref: string, readerOf?: Id): Effect.fn.Return<Discussion, NotFound, Store> {
  const store = yield* Store
  const r = recordRef(ref)
  // Loomio's discussion URLs append the title to the key: /d/KEY-the-title
  const found = "id" in r ? yield* store.discussions.byId(r.id, readerOf) : yield* store.discussions.byKey(r.key.split("-")[0]!, readerOf)
  if (found === undefined) return yield* notFound(`Discussion ${ref} not found`)
  return found
})

/** The discussion with its thread and the caller's context; a soft-deleted discussion is not found. */
const loadKept = Effect.fnUntraced(function*(access: Access, ref: string) {
  const discussion = yield* findDiscussion(ref, access.user.id)
  if (discussion.discarded_at !== null) return yield* notFound(`Discussion ${ref} not found`)
  const topic = yield* topicById(discussion.topic_id)
  return { discussion, topic, ctx: yield* topicContext(access, topic) }
})

const reload = Effect.fnUntraced(function*(id: Id): Effect.fn.Return<DiscussionView, never, Store> {
  const store = yield* Store
  const discussion = (yield* store.discussions.byId(id))!
  return { discussion, topic: (yield* store.topics.byId(discussion.topic_id))! }
})

/** GET /discussions/{id}: unknown or deleted → 404; not readable → 403. */
export const showDiscussion = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<DiscussionView, NotFound | Forbidden, Store> {
  const { ctx, discussion, topic } = yield* loadKept(access, ref)
  return yield* ShowTopic.check([access, ctx], () => forbidden("Not authorized to show Discussion."))(Effect.as(ShowTopic.needed, { discussion, topic }))
})

export interface DiscussionList extends Paged<DiscussionView> {
  readonly group: Group
}

/** A visible group's discussions the caller may read, where ShowGroup allowed them to see the group. */
const groupDiscussions = Effect.fnUntraced(function*(access: Access, group: Group, status: ThreadStatus, page: Page, tag: string | undefined): Effect.fn.Return<DiscussionList, never, Store | Permit<"ShowGroup">> {
  yield* ShowGroup.needed
  const store = yield* Store
  const scope = groupTopicScope(access, group)
  const filter = { groupId: group.id, topicableType: "Discussion" as const, status, ...(tag === undefined ? {} : { tag }) }
  const topics = yield* store.topics.visible(scope, filter, page)
  const total = yield* store.topics.countVisible(scope, filter)
  return { group, total, records: yield* viewsOfTopics(topics) }
})

/** GET /discussions?group_id: the group must be visible (else 403); then the discussions the caller may read. */
export const listDiscussions = Effect.fnUntraced(function*(
  access: Access,
  groupId: Id,
  status: ThreadStatus,
  page: Page,
  /** only threads carrying this tag (`?tag=`) */
  tag?: string
): Effect.fn.Return<DiscussionList, NotFound | Forbidden, Store> {
  // a deleted group is not found
  const group = yield* findGroup(String(groupId))
  return yield* ShowGroup.check([access, group], () => forbidden("Not authorized to show Group."))(groupDiscussions(access, group, status, page, tag))
})

/** Groups (with counters and parents) and people that discussion documents side-load. */
export const related = Effect.fnUntraced(function*(
  views: ReadonlyArray<DiscussionView>,
  want: { groups: boolean; users: boolean }
): Effect.fn.Return<{ groups: ReadonlyArray<GroupView>; users: ReadonlyArray<User> }, never, Store> {
  const store = yield* Store
  const groups = want.groups ? yield* viewGroupsById(views.flatMap((v) => (v.topic.group_id === null ? [] : [v.topic.group_id]))) : []
  const users = want.users ? yield* store.users.byIds([...new Set(views.map((v) => v.discussion.author_id))]) : []
  return { groups, users }
})

/** The new discussion, its thread, item, notices and event, where StartDiscussion allowed it. */
const insertDiscussion = Effect.fnUntraced(function*(access: Access, group: Group, input: DiscussionInput): Effect.fn.Return<DiscussionView, Invalid, Store | Permit<"StartDiscussion">> {
  yield* StartDiscussion.needed
  const store = yield* Store
  const titleProblem = plainLineErrors(input.title, true)
  if (titleProblem !== null) return yield* invalid("title", titleProblem)
  const isPrivate = input.private ?? privateDefault(group)
  const privacy = privacyErrors(group, isPrivate)
  if (privacy !== null) return yield* invalid("private", privacy)
  yield* checkEmails("recipient_emails", input.recipient_emails)
  const now = yield* nowIso
  const topic = yield* store.topics.insert({
    group_id: group.id,
    topicable_type: "Discussion",
    topicable_id: null,
    private: isPrivate,
    tags: [],
    max_depth: 3,
    last_activity_at: now,
    created_at: now
  })
  const format = input.description_format ?? "md"
  const discussion = yield* store.discussions.insert({
    key: newRecordKey(),
    topic_id: topic.id,
    author_id: access.user.id,
    title: input.title!,
    description: cleanBody(input.description ?? "", format),
    description_format: format,
    created_at: now
  })
  yield* store.topics.update(topic.id, { topicable_id: discussion.id, updated_at: now })
  if (input.files !== undefined && input.files.length > 0) yield* attachFiles(access, "Discussion", discussion.id, input.files)
  const withId = { ...topic, topicable_id: discussion.id }
  yield* recordItem({
    topic: withId,
    kind: "new_discussion",
    itemable_type: "Discussion",
    itemable_id: discussion.id,
    actor: access.user,
    parent: null,
    bump: true
  })
  const told = yield* announce(withId, group, access.user, "new_discussion", { title: discussion.title, path: `/d/${discussion.key}` }, recipientsOf(input))
  yield* notifyMentions(discussion.description, { topic: withId, group, actor: access.user, title: discussion.title, path: `/d/${discussion.key}` }, told)
  yield* threadEvent("new_discussion", withId, discussion, access.user, { message: input.recipient_message })
  return yield* reload(discussion.id)
})

/** POST /discussions. Missing group_id or title, or a privacy the group does not allow → 422. */
export const createDiscussion = Effect.fnUntraced(function*(
  access: Access,
  input: DiscussionInput
): Effect.fn.Return<DiscussionView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  if (input.group_id === undefined) return yield* invalid("group_id", "can't be blank")
  return yield* store.transaction(Effect.gen(function*() {
    const group = yield* store.groups.byId(input.group_id!)
    if (group === undefined) return yield* notFound(`Group ${input.group_id} not found`)
    return yield* StartDiscussion.check([access, group], () => forbidden("Not authorized to create Discussion."))(insertDiscussion(access, group, input))
  }))
})

/** A discussion's edit, with its item, notices and event, where EditDiscussion allowed it. */
const applyDiscussionEdit = Effect.fnUntraced(function*(access: Access, ctx: TopicContext, discussion: Discussion, topic: Topic, input: DiscussionInput): Effect.fn.Return<DiscussionView, Invalid, Store | Permit<"EditDiscussion">> {
  yield* EditDiscussion.needed
  const store = yield* Store
  if (input.group_id !== undefined && input.group_id !== topic.group_id) {
    return yield* invalid("group_id", "cannot be changed: moving a discussion to another group is not supported")
  }
  const titleProblem = input.title === undefined ? null : plainLineErrors(input.title, true)
  if (titleProblem !== null) return yield* invalid("title", titleProblem)
  if (input.private !== undefined && ctx.group !== undefined) {
    const privacy = privacyErrors(ctx.group, input.private)
    if (privacy !== null) return yield* invalid("private", privacy)
  }
  yield* checkEmails("recipient_emails", input.recipient_emails)
  const { text: description, format } = changedBody(
    { text: discussion.description, format: discussion.description_format },
    { text: input.description === null ? "" : input.description, format: input.description_format }
  )
  const title = input.title ?? discussion.title
  const isPrivate = input.private ?? topic.private
  let tags = topic.tags
  if (input.tags !== undefined) {
    const names = tagNamesFrom(input.tags)
    const problem = threadTagsErrors(names)
    if (problem !== null) return yield* invalid("tags", problem)
    tags = ctx.group === undefined ? names : yield* ensureTags(ctx.group, names)
  }
  const tagsChanged = JSON.stringify(tags) !== JSON.stringify(topic.tags)
  const changed = title !== discussion.title || description !== discussion.description ||
    format !== discussion.description_format || isPrivate !== topic.private || tagsChanged
  const now = yield* nowIso
  if (changed) {
    yield* store.discussions.update(discussion.id, { title, description, description_format: format, updated_at: now })
    if (isPrivate !== topic.private || tagsChanged) yield* store.topics.update(topic.id, { private: isPrivate, tags: [...tags], updated_at: now })
    // Show edits: each field's before and after (Loomio's paper-trail version)
    yield* recordVersion(discussion.id, access.user, {
      title: [discussion.title, title],
      description: [discussion.description, description],
      private: [topic.private, isPrivate],
      tags: [topic.tags, tags]
    })
    yield* recordItem({
      topic,
      kind: "discussion_edited",
      itemable_type: "Discussion",
      itemable_id: discussion.id,
      actor: access.user,
      parent: "thread",
      bump: true
    })
  }
  if (input.files !== undefined) yield* attachFiles(access, "Discussion", discussion.id, input.files)
  const recipients = recipientsOf(input)
  if (hasRecipients(recipients)) yield* announce(topic, ctx.group, access.user, "discussion_edited", { title, path: `/d/${discussion.key}` }, recipients)
  const view = yield* reload(discussion.id)
  if (changed || hasRecipients(recipients)) {
    yield* threadEvent("discussion_edited", view.topic, view.discussion, access.user, { message: input.recipient_message })
  }
  return view
})

/** PATCH/PUT /discussions/{id}: edits record a `discussion_edited` item; recipients are notified of the edit. */
export const updateDiscussion = Effect.fnUntraced(function*(
  access: Access,
  ref: string,
  input: DiscussionInput
): Effect.fn.Return<DiscussionView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, discussion, topic } = yield* loadKept(access, ref)
    return yield* EditDiscussion.check([access, ctx, discussion], () => forbidden("Not authorized to update Discussion."))(applyDiscussionEdit(access, ctx, discussion, topic, input))
  }))
})

/** A discussion soft-deleted with its thread, where DeleteDiscussion allowed it. */
const discardDiscussion = Effect.fnUntraced(function*(access: Access, discussion: Discussion, topic: Topic): Effect.fn.Return<DiscussionView, never, Store | Permit<"DeleteDiscussion">> {
  yield* DeleteDiscussion.needed
  const store = yield* Store
  const now = yield* nowIso
  yield* store.discussions.update(discussion.id, { discarded_at: now, discarded_by: access.user.id, updated_at: now })
  yield* store.topics.update(topic.id, { discarded_at: now, updated_at: now })
  return yield* reload(discussion.id)
})

/** DELETE /discussions/{id}: soft delete by the author or a group admin; the thread disappears with it. */
export const deleteDiscussion = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<DiscussionView, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, discussion, topic } = yield* loadKept(access, ref)
    return yield* DeleteDiscussion.check([access, ctx, discussion], () => forbidden("Not authorized to destroy Discussion."))(discardDiscussion(access, discussion, topic))
  }))
})

/** The privacy a thread takes in the group it moves to: what the group allows, else as it was. */
const privacyIn = (group: Group, was: boolean): boolean =>
  group.discussion_privacy_options === "private_only" ? true : group.discussion_privacy_options === "public_only" ? false : was

const moving = Effect.fnUntraced(function*(access: Access, topic: Topic, discussion: Discussion, to: Group): Effect.fn.Return<void, never, Store | Permit<"EditDiscussion"> | Permit<"StartDiscussion">> {
  yield* EditDiscussion.needed
  yield* StartDiscussion.needed
  const store = yield* Store
  const now = yield* nowIso
  const isPrivate = privacyIn(to, topic.private)
  // the thread's tags come along, as the target group's tags
  const tags = yield* ensureTags(to, topic.tags)
  yield* store.topics.update(topic.id, { group_id: to.id, private: isPrivate, tags: [...tags], updated_at: now })
  yield* recordVersion(discussion.id, access.user, { group_id: [topic.group_id, to.id], private: [topic.private, isPrivate] })
  const moved = (yield* store.topics.byId(topic.id))!
  yield* recordItem({ topic: moved, kind: "discussion_moved", itemable_type: "Discussion", itemable_id: discussion.id, actor: access.user, parent: "thread", bump: true })
  yield* threadEvent("discussion_moved", moved, discussion, access.user, {})
})

/**
 * **Move thread** (decisions §12): to a group where the person may start threads, by whoever may edit the thread; its
 * polls come with it (they belong to the thread), its privacy follows the target, a thread item records it.
 */
export const moveDiscussion = Effect.fnUntraced(function*(access: Access, discussionRef: string, groupRef: string): Effect.fn.Return<DiscussionView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, discussion: found, topic } = yield* loadKept(access, discussionRef)
    const target = yield* findGroup(groupRef)
    if (target.id === topic.group_id) return yield* invalid("group_id", "is the thread's group already")
    return yield* EditDiscussion.check([access, ctx, found], () => forbidden("Not authorized to move Discussion."))(
      StartDiscussion.check([access, target], () => forbidden("You may not start threads in that group"))(
        Effect.zipRight(moving(access, topic, found, target), reload(found.id))
      )
    )
  }))
})

/** **Show edits**: the thread's edits, oldest first, with who made them and the groups a move names; to whoever reads it. */
export const discussionEdits = Effect.fnUntraced(function*(access: Access, ref: string) {
  const store = yield* Store
  const view = yield* showDiscussion(access, ref)
  const versions = yield* store.versions.of("Discussion", view.discussion.id)
  const people = yield* store.users.byIds([...new Set(versions.flatMap((v) => (v.whodunnit === null ? [] : [v.whodunnit])))])
  const groupIds = versions.flatMap((v) => (v.object_changes.group_id ?? []).filter((x): x is number => typeof x === "number"))
  const groups = yield* store.groups.byIds([...new Set(groupIds)])
  return { view, versions, people, groups }
})

/** A thread closed or reopened, with its item, where EditDiscussion allowed it (repeating is a no-op). */
const closeDiscussion = Effect.fnUntraced(function*(access: Access, discussion: Discussion, topic: Topic, closed: boolean): Effect.fn.Return<DiscussionView, never, Store | Permit<"EditDiscussion">> {
  yield* EditDiscussion.needed
  const store = yield* Store
  if ((topic.closed_at !== null) === closed) return { discussion, topic }
  const now = yield* nowIso
  yield* store.topics.update(topic.id, { closed_at: closed ? now : null, closer_id: closed ? access.user.id : null, updated_at: now })
  yield* recordItem({
    topic,
    kind: closed ? "discussion_closed" : "discussion_reopened",
    itemable_type: "Discussion",
    itemable_id: discussion.id,
    actor: access.user,
    parent: "thread",
    bump: false
  })
  return yield* reload(discussion.id)
})

/** POST /discussions/{id}/close and /reopen (extension): who may edit may close; repeating is a no-op. */
export const setClosed = Effect.fnUntraced(function*(
  access: Access,
  ref: string,
  closed: boolean
): Effect.fn.Return<DiscussionView, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, discussion, topic } = yield* loadKept(access, ref)
    return yield* EditDiscussion.check([access, ctx, discussion], () => forbidden(`Not authorized to ${closed ? "close" : "reopen"} Discussion.`))(closeDiscussion(access, discussion, topic, closed))
  }))
})

/** A thread pinned or unpinned, where EditDiscussion allowed it (repeating is a no-op). */
const pinDiscussion = Effect.fnUntraced(function*(discussion: Discussion, topic: Topic, pinned: boolean): Effect.fn.Return<DiscussionView, never, Store | Permit<"EditDiscussion">> {
  yield* EditDiscussion.needed
  const store = yield* Store
  if ((topic.pinned_at !== null) === pinned) return { discussion, topic }
  const now = yield* nowIso
  yield* store.topics.update(topic.id, { pinned_at: pinned ? now : null, updated_at: now })
  return yield* reload(discussion.id)
})

/** **Pin thread** / **Unpin thread** (decisions §12), POST /discussions/{id}/pin and /unpin (extension): who may edit may pin. */
export const setPinned = Effect.fnUntraced(function*(access: Access, ref: string, pinned: boolean): Effect.fn.Return<DiscussionView, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, discussion, topic } = yield* loadKept(access, ref)
    return yield* EditDiscussion.check([access, ctx, discussion], () => forbidden(`Not authorized to ${pinned ? "pin" : "unpin"} Discussion.`))(pinDiscussion(discussion, topic, pinned))
  }))
})

/** The discussions of discussion threads (GET /threads side-loads them), in the threads' order. */
export const viewsOfTopics = Effect.fnUntraced(function*(topics: ReadonlyArray<Topic>): Effect.fn.Return<ReadonlyArray<DiscussionView>, never, Store> {
  const store = yield* Store
  const ids = topics.filter((t) => t.topicable_type === "Discussion").map((t) => t.id)
  const byTopic = new Map((yield* store.discussions.byTopicIds(ids)).map((d) => [d.topic_id, d]))
  return topics.flatMap((topic) => {
    const discussion = byTopic.get(topic.id)
    return discussion === undefined ? [] : [{ discussion, topic }]
  })
})
