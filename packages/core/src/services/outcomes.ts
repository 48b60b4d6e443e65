/** Outcomes of closed polls: the poll's current outcome is its latest (extension endpoints, decisions.md §3). */
import { attachFiles } from "./attachments.js"
import { Effect } from "effect"
import type { Outcome, Poll, Stance } from "../domain/polls.js"
import type { Id, User } from "../domain/records.js"
import { forbidden, type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { changedBody, cleanBody } from "../rules/bodies.js"
import { isIsoDate } from "../rules/dates.js"
import { type Permit, StateOutcome } from "../policies.js"
import type { TopicContext } from "../rules/topics.js"
import { bodyMarkdown } from "../rules/threadMarkdown.js"
import { displayName } from "../rules/users.js"
import { headlineFor } from "../rules/webhookPayloads.js"
import { nowIso } from "./common.js"
import { publishEvent } from "./events.js"
import { pollItemParent, type PollView, viewPolls, visiblePoll } from "./polls/index.js"
import { recordItem } from "./threads/kernel.js"
import { recordThreadMessage } from "./mail.js"
import { attends, meetingCalendar } from "../rules/calendar.js"
import * as Inputs from "../domain/inputs.js"

/** What stating or changing an outcome takes (declared once in domain/inputs.ts); its poll is given apart. */
export type OutcomeInput = Omit<typeof Inputs.OutcomeInput.Type, "poll_id">

export interface OutcomeResult {
  readonly outcome: Outcome
  readonly view: PollView
}

const checkReviewOn = (v: string | null | undefined): Effect.Effect<void, Invalid> =>
  v == null || isIsoDate(v) ? Effect.void : Effect.fail(invalid("review_on", "must be a date (YYYY-MM-DD)"))

export const outcomeEvent = (kind: "outcome_created" | "outcome_updated" | "outcome_review_due", poll: Poll, o: Outcome, actor: User | null) =>
  publishEvent({
    kind,
    group_id: poll.group_id,
    actor_id: actor?.id ?? null,
    eventable_type: "Outcome",
    eventable_id: o.id,
    message: {
      headline: headlineFor(kind, actor === null ? "Someone" : displayName(actor)),
      title: poll.title,
      path: `/p/${poll.key}`,
      body: bodyMarkdown(o.statement, o.statement_format) || null,
      recipient_message: null
    }
  })

/** `step` on a closed poll the caller may see, where StateOutcome allows them to state its outcome. */
const stating = <A, E, R>(
  access: Access,
  pollId: Id,
  step: (pc: { readonly ctx: TopicContext; readonly poll: Poll }) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | NotFound | Forbidden | Invalid, Store | Exclude<R, Permit<"StateOutcome">>> =>
  Effect.flatMap(visiblePoll(access, pollId), (pc): Effect.Effect<A, E | Forbidden | Invalid, Exclude<R, Permit<"StateOutcome">>> =>
    pc.poll.closed_at === null
      ? Effect.fail(invalid("poll_id", "outcomes are stated on closed polls"))
      : StateOutcome.check([access, pc.ctx, pc.poll], () => forbidden("Not authorized to state an Outcome."))(step(pc)))

export const createOutcome = Effect.fnUntraced(function*(
  access: Access,
  pollId: Id,
  input: OutcomeInput
): Effect.fn.Return<OutcomeResult, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  if (input.statement === undefined || input.statement.trim() === "") return yield* invalid("statement", "can't be blank")
  yield* checkReviewOn(input.review_on)
  return yield* store.transaction(stating(access, pollId, ({ ctx, poll }) => Effect.gen(function*() {
    yield* StateOutcome.needed
    if (input.poll_option_id != null) {
      const options = yield* store.pollOptions.ofPolls([poll.id])
      if (!options.some((o) => o.id === input.poll_option_id)) return yield* invalid("poll_option_id", "must be an option of this poll")
    }
    const format = input.statement_format ?? "md"
    const outcome = yield* store.outcomes.insert({
      poll_id: poll.id,
      author_id: access.user.id,
      statement: cleanBody(input.statement!, format),
      statement_format: format,
      poll_option_id: input.poll_option_id ?? null,
      review_on: input.review_on ?? null,
      event_summary: eventText(input.event_summary),
      event_location: eventText(input.event_location),
      created_at: yield* nowIso
    })
    if (input.files !== undefined && input.files.length > 0) yield* attachFiles(access, "Outcome", outcome.id, input.files)
    yield* recordItem({
      topic: ctx.topic, kind: "outcome_created", itemable_type: "Outcome", itemable_id: outcome.id, actor: access.user,
      parent: yield* pollItemParent(poll), bump: true
    })
    yield* outcomeEvent("outcome_created", poll, outcome, access.user)
    // as Loomio: the poll's voters hear of its outcome (each once, the author not); a meeting's Yes and Maybe get its invitation
    const ballots = yield* store.stances.latestOf([poll.id])
    const invitation = yield* meetingInvitation(poll, outcome, access.user, ballots)
    const voterIds = [...new Set(ballots.map((s) => s.participant_id))].filter((id) => id !== access.user.id)
    for (const voter of yield* store.users.byIds(voterIds)) {
      if (voter.deactivated_at !== null) continue
      yield* recordThreadMessage(voter, {
        kind: "outcome_created", group: ctx.group, title: poll.title, actor: access.user, path: `/p/${poll.key}`, topicId: poll.topic_id,
        ...(invitation !== undefined && invitation.to.has(voter.id) ? { calendar: invitation.ics } : {})
      })
    }
    return { outcome, view: (yield* viewPolls(access, [poll]))[0]! }
  })))
})

/** An event's title or place as given: trimmed, and none when blank. */
const eventText = (text: string | null | undefined): string | null => (text == null || text.trim() === "" ? null : text.trim().slice(0, 250))

/**
 * A meeting poll's outcome with its chosen time (decisions §15): the calendar invitation, and who is sent it: those
 * whose counted ballot answered Yes or Maybe for that time (not, as Loomio does, everyone who voted).
 */
const meetingInvitation = Effect.fnUntraced(function*(poll: Poll, outcome: Outcome, author: User, ballots: ReadonlyArray<Stance>) {
  if (poll.poll_type !== "meeting" || outcome.poll_option_id === null) return undefined
  const store = yield* Store
  const option = (yield* store.pollOptions.ofPolls([poll.id])).find((o) => o.id === outcome.poll_option_id)
  if (option === undefined) return undefined
  const coming = ballots.filter((s) => s.cast_at !== null && attends(s.choices.get(option.id)))
  const maybe = new Set(coming.filter((s) => s.choices.get(option.id) === 1).map((s) => s.participant_id))
  const attendees = (yield* store.users.byIds(coming.map((s) => s.participant_id))).filter((u) => u.email !== null && u.deactivated_at === null)
  const ics = meetingCalendar({
    uid: `outcome-${outcome.id}-poll-${poll.key}@convene`,
    slot: option.name,
    summary: outcome.event_summary ?? poll.title,
    location: outcome.event_location,
    description: bodyMarkdown(outcome.statement, outcome.statement_format),
    organizer: author.email === null ? undefined : { name: displayName(author), email: author.email },
    attendees: attendees.map((u) => ({ name: displayName(u), email: u.email!, maybe: maybe.has(u.id) }))
  })
  return { ics, to: new Set(attendees.map((u) => u.id)) }
})

export const updateOutcome = Effect.fnUntraced(function*(
  access: Access,
  id: Id,
  input: OutcomeInput
): Effect.fn.Return<OutcomeResult, NotFound | Forbidden | Invalid, Store> {
  const store = yield* Store
  if (input.statement !== undefined && input.statement.trim() === "") return yield* invalid("statement", "can't be blank")
  yield* checkReviewOn(input.review_on)
  return yield* store.transaction(Effect.gen(function*() {
    const existing = yield* store.outcomes.byId(id)
    if (existing === undefined) return yield* notFound(`Outcome ${id} not found`)
    return yield* stating(access, existing.poll_id, ({ poll }) => Effect.gen(function*() {
      yield* StateOutcome.needed
      const statement = changedBody({ text: existing.statement, format: existing.statement_format }, { text: input.statement, format: input.statement_format })
      const now = yield* nowIso
      yield* store.outcomes.update(id, {
        statement: statement.text,
        statement_format: statement.format,
        ...(input.review_on === undefined ? {} : { review_on: input.review_on, review_sent_at: null }),
        ...(input.event_summary === undefined ? {} : { event_summary: eventText(input.event_summary) }),
        ...(input.event_location === undefined ? {} : { event_location: eventText(input.event_location) }),
        updated_at: now
      })
      if (input.files !== undefined) yield* attachFiles(access, "Outcome", id, input.files)
      const outcome = (yield* store.outcomes.byId(id))!
      yield* outcomeEvent("outcome_updated", poll, outcome, access.user)
      return { outcome, view: (yield* viewPolls(access, [poll]))[0]! }
    }))
  }))
})
