/**
 * Writing polls: create (in a discussion's thread or in a thread of their own), edit, delete, close and reopen.
 * Each write is one transaction with its thread item, ballots, mail and webhook event.
 */
import { attachFiles } from "../attachments.js"
import { Effect } from "effect"
import { type Poll, POLL_TYPE_FACTS, pollSettings, type PollSettings, type PollType } from "../../domain/polls.js"
import type { Group, Id, User } from "../../domain/records.js"
import { parseDateTime } from "../../rules/dates.js"
import { forbidden, type Forbidden, type Invalid, invalid, notFound, type NotFound, type TooManyRequests, tooManyRequests } from "../../errors.js"
import { Store } from "../../ports/store.js"
import type { Access } from "../../rules/access.js"
import { changedBody, cleanBody } from "../../rules/bodies.js"
import { ballotConfig, configErrors, optionsErrors, orderOptions } from "../../rules/pollTypes.js"
import { isActive, isDraft, msUntilReminder, pollSettingsErrors } from "../../rules/polls.js"
import { ClosePoll, DeletePoll, EditPoll, type Permit, RemindVoters, ReopenPoll, StartPoll } from "../../policies.js"
import { privateDefault, type TopicContext } from "../../rules/topics.js"
import { giveBallot } from "../ballots.js"
import { settlePoll } from "../delegatedBallots.js"
import { choosableMembers } from "../memberships.js"
import { isTemplateKey } from "./templates.js"
import { checkEmails, nowIso } from "../common.js"
import { newRecordKey } from "../../rules/keys.js"
import { recordThreadMessage } from "../mail.js"
import { type Recipients, recipientsOf, recordItem, resolveRecipients, topicById, topicContext } from "../threads/kernel.js"
import { plainLineErrors } from "../../rules/values.js"

import { type PollView, viewPolls, visiblePoll } from "./read.js"
import { closeNow, openPoll, pollEvent, pollItemParent } from "./events.js"
import * as Inputs from "../../domain/inputs.js"

/** What creating a poll takes (declared once in domain/inputs.ts). */
export type PollInput = typeof Inputs.PollInput.Type


/** A future ISO 8601 date-time, or null (draft). */
const closingTime = (value: string | null | undefined, now: string): Effect.Effect<string | null, Invalid> => {
  if (value === undefined || value === null) return Effect.succeed(null)
  const ms = /^\d{4}-\d{2}-\d{2}[T ]/.test(value) ? parseDateTime(value) : undefined
  if (ms === undefined) return Effect.fail(invalid("closing_at", "must be an ISO 8601 date-time"))
  if (ms <= Date.parse(now)) return Effect.fail(invalid("closing_at", "must be in the future"))
  return Effect.succeed(new Date(ms).toISOString())
}

interface PollRecipients extends Recipients {
  readonly notify: boolean
}

/**
 * Invites people to vote: each gets a ballot (and, when not a group member, guest access to the thread);
 * with `notify`, each is told through the mail outbox. The people are the thread kernel's recipients.
 */
const invite = Effect.fnUntraced(function*(poll: Poll, ctx: TopicContext, actor: User, r: PollRecipients) {
  const store = yield* Store
  const now = yield* nowIso
  for (const { member, user } of yield* resolveRecipients(ctx.group, actor, r, { includeActor: true })) {
    if (!member) yield* store.readers.upsert({ topic_id: poll.topic_id, user_id: user.id, inviter_id: actor.id, guest: true, created_at: now })
    yield* giveBallot(poll, user.id, actor.id)
    if (r.notify && user.id !== actor.id) {
      yield* recordThreadMessage(user, {
        kind: "poll_invitation", group: ctx.group, title: poll.title, actor, message: r.message ?? null, path: `/p/${poll.key}`,
        ...(member ? {} : { invitation: { kind: "poll" as const, topic: ctx.topic } })
      })
    }
  }
})

/** The thread a new poll joins (`discussion_id` or `topic_id`), or none for a poll of its own. */
const targetThread = Effect.fnUntraced(function*(access: Access, input: PollInput) {
  const store = yield* Store
  if (input.discussion_id != null) {
    const d = yield* store.discussions.byId(input.discussion_id)
    if (d === undefined || d.discarded_at !== null) return yield* notFound(`Discussion ${input.discussion_id} not found`)
    return yield* topicContext(access, yield* topicById(d.topic_id))
  }
  if (input.topic_id != null) {
    const t = yield* store.topics.byId(input.topic_id)
    if (t === undefined || t.discarded_at !== null) return yield* notFound(`Thread ${input.topic_id} not found`)
    return yield* topicContext(access, t)
  }
  return undefined
})

/** The numbers of a poll's type a write may set (rules/pollTypes.ts `ballotConfig`). */
const CONFIG_KEYS = ["min_score", "max_score", "minimum_stance_choices", "maximum_stance_choices", "dots_per_person", "can_respond_maybe"] as const

/** POST /polls (the spec's "Poll create rules"). */
export const createPoll = Effect.fnUntraced(function*(access: Access, input: PollInput): Effect.fn.Return<PollView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  const settingsProblem = pollSettingsErrors(input)
  if (settingsProblem !== null) return yield* invalid(settingsProblem[0], settingsProblem[1])
  if (input.poll_template_key != null && !isTemplateKey(input.poll_template_key)) return yield* invalid("poll_template_key", "is not a template's key")
  if (input.poll_template_key != null && input.poll_template_id != null) return yield* invalid("poll_template_id", "give poll_template_key or poll_template_id, not both")
  const type = input.poll_type as PollType
  const titleProblem = plainLineErrors(input.title, true)
  if (titleProblem !== null) return yield* invalid("title", titleProblem)
  const names = input.options ?? POLL_TYPE_FACTS[type].defaultOptions
  const optionProblem = optionsErrors(type, names)
  if (optionProblem !== null) return yield* invalid("options", optionProblem)
  const config = ballotConfig(type, input)
  const configProblem = configErrors(config)
  if (configProblem !== null) return yield* invalid(configProblem[0], configProblem[1])
  yield* checkEmails("recipient_emails", input.recipient_emails)
  const now = yield* nowIso
  const closingAt = yield* closingTime(input.closing_at, now)

  return yield* store.transaction(Effect.gen(function*() {
    const thread = yield* targetThread(access, input)
    // group_id is ignored when the poll joins a thread: the thread's group is the poll's group
    const group = thread !== undefined
      ? thread.group
      : input.group_id == null
      ? undefined
      : yield* store.groups.byId(input.group_id)
    if (thread === undefined && input.group_id == null) return yield* invalid("group_id", "can't be blank")
    if (thread === undefined && group === undefined) return yield* notFound(`Group ${input.group_id} not found`)
    return yield* StartPoll.check([access, group, thread], () => forbidden("Not authorized to create Poll."))(
      insertPoll(access, group!, thread, input, { type, names, config, closingAt, now }))
  }))
})

/** The new poll, its options, thread item, ballots and event, where StartPoll allowed it. */
const insertPoll = Effect.fnUntraced(function*(
  access: Access,
  group: Group,
  thread: TopicContext | undefined,
  input: PollInput,
  settled: { type: PollType; names: ReadonlyArray<string>; config: ReturnType<typeof ballotConfig>; closingAt: string | null; now: string }
): Effect.fn.Return<PollView, Invalid, Store | Permit<"StartPoll">> {
  yield* StartPoll.needed
  const store = yield* Store
  const { type, names, config, closingAt, now } = settled
  if (input.poll_template_id != null) {
    const template = yield* store.pollTemplates.byId(input.poll_template_id)
    if (template === undefined || template.group_id !== group.id || template.discarded_at !== null) return yield* invalid("poll_template_id", "is not one of the group's templates")
  }
  const topic = thread?.topic ?? (yield* store.topics.insert({
    group_id: group!.id,
    topicable_type: "Poll",
    topicable_id: null,
    private: privateDefault(group!),
    tags: [],
    max_depth: 3,
    last_activity_at: now,
    created_at: now
  }))
  const poll = yield* store.polls.insert({
    ...config,
    key: newRecordKey(),
    topic_id: topic.id,
    author_id: access.user.id,
    title: input.title!.trim(),
    details: cleanBody(input.details ?? "", input.details_format ?? "md"),
    details_format: input.details_format ?? "md",
    closing_at: closingAt,
    opened_at: closingAt === null ? null : now,
    ...(pollSettings(input, true) as PollSettings),
    poll_template_key: input.poll_template_key ?? null,
    poll_template_id: input.poll_template_id ?? null,
    created_at: now
  })
  yield* store.pollOptions.replace(poll.id, orderOptions(type, names))
  if (input.files !== undefined && input.files.length > 0) yield* attachFiles(access, "Poll", poll.id, input.files)
  if (thread === undefined) yield* store.topics.update(topic.id, { topicable_id: poll.id, updated_at: now })
  const placed = thread === undefined ? { ...topic, topicable_id: poll.id } : topic
  yield* recordItem({
    topic: placed,
    kind: "poll_created",
    itemable_type: "Poll",
    itemable_id: poll.id,
    actor: access.user,
    parent: thread === undefined ? null : "thread",
    bump: true
  })
  // its group was found, not deleted, in this transaction
  const ctx = yield* Effect.orDie(topicContext(access, placed))
  yield* invite(poll, ctx, access.user, { ...recipientsOf(input), notify: input.notify_recipients ?? false })
  if (poll.opened_at !== null) yield* openPoll(poll, group, access.user)
  return yield* reload(access, poll.id)
})

const reload = Effect.fnUntraced(function*(access: Access, id: Id) {
  const store = yield* Store
  return (yield* viewPolls(access, [(yield* store.polls.byId(id))!]))[0]!
})

/** Update accepts the create fields but the ballot settings (decisions §1 "Poll update fields"). */
export type PollPatchInput = typeof Inputs.PollPatchInput.Type

/** `group_id`, `discussion_id`, `topic_id` name where a poll lives: accepted when unchanged, refused when they would move it. */
const placementError = (poll: Poll, discussionId: Id | null, input: PollPatchInput): [string, string] | null => {
  if (input.group_id !== undefined && input.group_id !== poll.group_id) return ["group_id", "can't be changed"]
  if (input.discussion_id !== undefined && input.discussion_id !== discussionId) return ["discussion_id", "can't be changed"]
  if (input.topic_id !== undefined && input.topic_id !== poll.topic_id) return ["topic_id", "can't be changed"]
  return null
}

/**
 * PATCH /polls/{id}. Changing options keeps the votes on options that stay and deletes the votes on options
 * removed (Loomio); a draft given a `closing_at` opens (`poll_created`); an open poll cannot become a draft.
 */
export const updatePoll = Effect.fnUntraced(function*(access: Access, ref: string, input: PollPatchInput): Effect.fn.Return<PollView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  const titleProblem = input.title === undefined ? null : plainLineErrors(input.title, true)
  if (titleProblem !== null) return yield* invalid("title", titleProblem)
  yield* checkEmails("recipient_emails", input.recipient_emails)
  const now = yield* nowIso
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, poll } = yield* visiblePoll(access, ref)
    return yield* EditPoll.check([access, ctx, poll], () => forbidden("Not authorized to update Poll."))(applyPollEdit(access, ctx, poll, input, now))
  }))
})

/** A poll's edit, where EditPoll allowed it: checked against its settings, then written with its event. */
const applyPollEdit = Effect.fnUntraced(function*(
  access: Access,
  ctx: TopicContext,
  poll: Poll,
  input: PollPatchInput,
  now: string
): Effect.fn.Return<PollView, Invalid, Store | Permit<"EditPoll">> {
  yield* EditPoll.needed
  const store = yield* Store
  const discussionId = ctx.topic.topicable_type === "Discussion" ? ctx.topic.topicable_id : null
  const problem = pollSettingsErrors(input, poll) ?? placementError(poll, discussionId, input)
  if (problem !== null) return yield* invalid(problem[0], problem[1])
  if (input.options !== undefined) {
    const problem = optionsErrors(poll.poll_type, input.options)
    if (problem !== null) return yield* invalid("options", problem)
  }
  // the type's numbers: those sent, else the poll's own, checked together as on creation
  const { poll_type: _type, ...config } = ballotConfig(poll.poll_type, Object.fromEntries(CONFIG_KEYS.map((k) => [k, input[k] ?? poll[k]])))
  const configProblem = configErrors({ poll_type: poll.poll_type, ...config })
  if (configProblem !== null) return yield* invalid(configProblem[0], configProblem[1])
  let closingAt = poll.closing_at
  if (input.closing_at !== undefined) {
    if (input.closing_at === null && !isDraft(poll)) return yield* invalid("closing_at", "can't be removed from an open poll")
    closingAt = yield* closingTime(input.closing_at, now)
  }
  const opens = isDraft(poll) && closingAt !== null
  const details = changedBody({ text: poll.details, format: poll.details_format }, { text: input.details, format: input.details_format })
  yield* store.polls.update(poll.id, {
    title: input.title?.trim() ?? poll.title,
    details: details.text,
    details_format: details.format,
    closing_at: closingAt,
    ...pollSettings(input, false),
    ...config,
    ...(opens ? { opened_at: now } : {}),
    ...(closingAt !== poll.closing_at ? { closing_soon_sent_at: null } : {}),
    updated_at: now
  })
  if (input.options !== undefined) yield* store.pollOptions.replace(poll.id, orderOptions(poll.poll_type, input.options))
  if (input.files !== undefined) yield* attachFiles(access, "Poll", poll.id, input.files)
  const updated = (yield* store.polls.byId(poll.id))!
  yield* invite(updated, ctx, access.user, { ...recipientsOf(input), notify: input.notify_recipients ?? false })
  if (opens) yield* openPoll(updated, ctx.group, access.user)
  else yield* pollEvent("poll_edited", updated, access.user, input.recipient_message ?? null)
  // a poll that starts or stops taking delegated votes: its delegated ballots follow (rules/delegation.ts)
  if (ctx.group !== undefined && updated.allow_delegated_votes !== poll.allow_delegated_votes) yield* settlePoll(updated, ctx.group)
  if (input.notify_voters === true && !opens) yield* tellVoters(updated, ctx, access.user, input.recipient_message ?? null)
  return yield* reload(access, poll.id)
})

/** "What's changed?" told by mail to everyone who holds a ballot of the poll (its editor aside), at the volume they chose. */
const tellVoters = Effect.fnUntraced(function*(poll: Poll, ctx: TopicContext, actor: User, message: string | null) {
  const store = yield* Store
  const ids = [...new Set((yield* store.stances.latestOf([poll.id])).filter((s) => s.revoked_at === null).map((s) => s.participant_id))].filter((id) => id !== actor.id)
  for (const voter of yield* store.users.byIds(ids)) {
    if (voter.deactivated_at !== null) continue
    yield* recordThreadMessage(voter, { kind: "poll_edited", group: ctx.group, topicId: ctx.topic.id, title: poll.title, actor, message, path: `/p/${poll.key}` })
  }
})

/**
 * **Invite voters** (decisions §15): particular members, or people by e-mail address (guests of the thread, with an
 * invitation link), each given a ballot and told by mail; the poll's administrators (EditPoll), while it is open.
 */
export const inviteVoters = Effect.fnUntraced(function*(access: Access, ref: string, input: { readonly userIds: ReadonlyArray<Id>; readonly emails: ReadonlyArray<string>; readonly message: string | null }): Effect.fn.Return<{ readonly poll: Poll; readonly invited: number }, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  yield* checkEmails("recipient_emails", input.emails)
  if (input.userIds.length === 0 && input.emails.length === 0) return yield* invalid("recipient_emails", "can't be blank: choose members or give addresses")
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, poll } = yield* visiblePoll(access, ref)
    if (!isActive(poll)) return yield* invalid("poll", isDraft(poll) ? "is a draft: it has not opened" : "is closed")
    return yield* EditPoll.check([access, ctx, poll], () => forbidden("Only the poll's administrators invite voters"))(Effect.gen(function*() {
      yield* EditPoll.needed
      const before = (yield* store.stances.latestOf([poll.id])).length
      yield* invite(poll, ctx, access.user, { userIds: input.userIds, emails: input.emails, message: input.message, notify: true })
      return { poll, invited: (yield* store.stances.latestOf([poll.id])).length - before }
    }))
  }))
})

/** The members of the poll's group who hold no ballot in it yet: whom **Invite voters** offers. */
export const voterChoices = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<ReadonlyArray<User>, NotFound | Forbidden, Store> {
  const store = yield* Store
  const { ctx, poll } = yield* visiblePoll(access, ref)
  return yield* EditPoll.check([access, ctx, poll], () => forbidden("Only the poll's administrators invite voters"))(Effect.gen(function*() {
    yield* EditPoll.needed
    if (ctx.group === undefined) return []
    return yield* choosableMembers(ctx.group.id, new Set((yield* store.stances.latestOf([poll.id])).map((s) => s.participant_id)))
  }))
})

/**
 * **Remind** (decisions §15): each person holding a ballot they have not cast is mailed, at most once a day a poll
 * (429 before then, nothing sent); the poll's administrators only. How many were reminded.
 */
export const remindVoters = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<{ readonly poll: Poll; readonly reminded: number }, NotFound | Forbidden | Invalid | TooManyRequests, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, poll } = yield* visiblePoll(access, ref)
    if (!isActive(poll)) return yield* invalid("poll", isDraft(poll) ? "is a draft: it has not opened" : "is closed")
    return yield* RemindVoters.check([access, ctx, poll], () => forbidden("Only the poll's administrators remind its voters"))(Effect.gen(function*() {
      yield* RemindVoters.needed
      const now = yield* nowIso
      const wait = msUntilReminder(poll, Date.parse(now))
      if (wait > 0) return yield* tooManyRequests(`Those who have not voted were reminded at ${poll.reminded_at}: once a day at most`, wait)
      const waiting = (yield* store.stances.latestOf([poll.id])).filter((s) => s.cast_at === null && s.participant_id !== access.user.id)
      const people = (yield* store.users.byIds(waiting.map((s) => s.participant_id))).filter((u) => u.deactivated_at === null && !u.bot)
      for (const person of people) {
        yield* recordThreadMessage(person, { kind: "poll_reminder", group: ctx.group, topicId: ctx.topic.id, title: poll.title, actor: access.user, path: `/p/${poll.key}` })
      }
      yield* store.polls.update(poll.id, { reminded_at: now, updated_at: now })
      return { poll, reminded: people.length }
    }))
  }))
})

/** DELETE /polls/{id}: soft delete; a poll's own thread goes with it. */
export const deletePoll = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<PollView, NotFound | Forbidden, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, poll } = yield* visiblePoll(access, ref)
    return yield* DeletePoll.check([access, ctx, poll], () => forbidden("Not authorized to destroy Poll."))(discardPoll(access, ctx, poll))
  }))
})

/** A poll soft-deleted (and its own thread with it), where DeletePoll allowed it. */
const discardPoll = Effect.fnUntraced(function*(access: Access, ctx: TopicContext, poll: Poll): Effect.fn.Return<PollView, never, Store | Permit<"DeletePoll">> {
  yield* DeletePoll.needed
  const store = yield* Store
  const now = yield* nowIso
  yield* store.polls.update(poll.id, { discarded_at: now, discarded_by: access.user.id, updated_at: now })
  if (ctx.topic.topicable_type === "Poll") yield* store.topics.update(ctx.topic.id, { discarded_at: now, updated_at: now })
  const [view] = yield* viewPolls(access, [(yield* store.polls.byId(poll.id))!])
  return view!
})

/** A poll closed by a person, where ClosePoll allowed it. */
const closeByUser = Effect.fnUntraced(function*(access: Access, ctx: TopicContext, poll: Poll): Effect.fn.Return<PollView, never, Store | Permit<"ClosePoll">> {
  yield* ClosePoll.needed
  yield* closeNow(poll, ctx.topic, access.user, "poll_closed_by_user")
  return yield* reload(access, poll.id)
})

export const closePoll = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<PollView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, poll } = yield* visiblePoll(access, ref)
    if (!isActive(poll)) return yield* invalid("poll", isDraft(poll) ? "is a draft: it has not opened" : "is already closed")
    return yield* ClosePoll.check([access, ctx, poll], () => forbidden("Not authorized to close Poll."))(closeByUser(access, ctx, poll))
  }))
})

/** A closed poll opened again until `closing`, with its item and event, where ReopenPoll allowed it. */
const reopenWith = Effect.fnUntraced(function*(access: Access, ctx: TopicContext, poll: Poll, closing: string | null, now: string): Effect.fn.Return<PollView, never, Store | Permit<"ReopenPoll">> {
  yield* ReopenPoll.needed
  const store = yield* Store
  yield* store.polls.update(poll.id, { closed_at: null, closing_at: closing, opened_at: now, closing_soon_sent_at: null, updated_at: now })
  const reopened = (yield* store.polls.byId(poll.id))!
  yield* recordItem({
    topic: ctx.topic, kind: "poll_reopened", itemable_type: "Poll", itemable_id: poll.id, actor: access.user,
    parent: yield* pollItemParent(poll), bump: true
  })
  yield* pollEvent("poll_reopened", reopened, access.user)
  return yield* reload(access, poll.id)
})

/** POST /polls/{id}/reopen with a future `closing_at`. Anonymous polls cannot be reopened (Loomio). */
export const reopenPoll = Effect.fnUntraced(function*(access: Access, ref: string, closingAt: string): Effect.fn.Return<PollView, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  const now = yield* nowIso
  const closing = yield* closingTime(closingAt, now)
  return yield* store.transaction(Effect.gen(function*() {
    const { ctx, poll } = yield* visiblePoll(access, ref)
    if (poll.closed_at === null) return yield* invalid("poll", "is not closed")
    if (poll.anonymous) return yield* invalid("poll", "is anonymous: anonymous polls cannot be reopened")
    return yield* ReopenPoll.check([access, ctx, poll], () => forbidden("Not authorized to reopen Poll."))(reopenWith(access, ctx, poll, closing, now))
  }))
})
