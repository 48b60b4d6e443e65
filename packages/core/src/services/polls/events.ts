/** What happens around a poll's life: its webhook events, opening (ballots and poll_created), closing, and where its items hang. */
import { Effect } from "effect"
import { type Poll } from "../../domain/polls.js"
import type { Group, ThreadItem, Topic, User } from "../../domain/records.js"
import type { EventKind } from "../../domain/webhooks.js"
import { Store } from "../../ports/store.js"
import { headlineFor } from "../../rules/webhookPayloads.js"
import { bodyMarkdown } from "../../rules/threadMarkdown.js"
import { displayName } from "../../rules/users.js"
import { issueBallots } from "../ballots.js"
import { nowIso } from "../common.js"
import { publishEvent, tellLive } from "../events.js"
import { recordItem } from "../threads/kernel.js"


/** The text of a poll's webhook events (never a vote or a result: the group sees those in the poll). */
export const pollEvent = (kind: EventKind, poll: Poll, actor: User | null, message: string | null = null) =>
  publishEvent({
    kind,
    group_id: poll.group_id,
    actor_id: actor?.id ?? null,
    eventable_type: "Poll",
    eventable_id: poll.id,
    message: {
      headline: headlineFor(kind, actor === null ? "Someone" : displayName(actor), poll.poll_type.replace("_", " ")),
      title: poll.title,
      path: `/p/${poll.key}`,
      body: bodyMarkdown(poll.details, poll.details_format) || null,
      recipient_message: message
    }
  })

/** Opening a poll: ballots, the `poll_created` item and event (decisions.md: create non-draft or draft opened). */
export const openPoll = Effect.fnUntraced(function*(poll: Poll, group: Group | undefined, actor: User) {
  yield* issueBallots(poll, group)
  yield* pollEvent("poll_created", poll, actor)
})

/** Closing: by a person (`poll_closed_by_user`) or by the scheduler at closing time (`poll_expired`). */
export const closeNow = Effect.fnUntraced(function*(poll: Poll, topic: Topic, actor: User | null, kind: "poll_closed_by_user" | "poll_expired") {
  const store = yield* Store
  const now = yield* nowIso
  yield* store.polls.update(poll.id, { closed_at: now, updated_at: now })
  const closed = (yield* store.polls.byId(poll.id))!
  if (actor !== null) {
    yield* recordItem({
      topic, kind, itemable_type: "Poll", itemable_id: poll.id, actor, parent: yield* pollItemParent(poll), bump: true
    })
  } else {
    // closed by the clock: no item, but open pages show it closed
    yield* tellLive("thread", { group_id: topic.group_id, topic_id: topic.id })
  }
  yield* pollEvent(kind, closed, actor)
})

/** Items about a poll hang under the poll's own item (under the thread's own item when the poll has none). */
export const pollItemParent = (poll: Poll) =>
  Effect.flatMap(Store, (store) =>
    Effect.map(store.items.byItemable("Poll", poll.id), (item): ThreadItem | "thread" => item ?? "thread"))
