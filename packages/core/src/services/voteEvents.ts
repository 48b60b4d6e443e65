/** A vote's webhook event, for a ballot cast by its voter or by their delegate's vote. */
import type { Poll, PollOption, Stance } from "../domain/polls.js"
import type { User } from "../domain/records.js"
import { revealVoteEvent } from "../rules/reveal.js"
import { bodyMarkdown, describeChoices } from "../rules/threadMarkdown.js"
import { displayName } from "../rules/users.js"
import { headlineFor } from "../rules/webhookPayloads.js"
import { publishEvent } from "./events.js"

/** The webhook text of a vote: never who voted in an anonymous poll, never the choice while results are hidden. */
export const voteEvent = (kind: "stance_created" | "stance_updated", poll: Poll, options: ReadonlyArray<PollOption>, stance: Stance, voter: User) => {
  const { choice: shown, voter: named } = revealVoteEvent(poll)
  const reason = stance.reason ? bodyMarkdown(stance.reason, stance.reason_format) : ""
  return publishEvent({
    kind,
    group_id: poll.group_id,
    actor_id: named ? voter.id : null,
    eventable_type: "Stance",
    eventable_id: stance.id,
    message: {
      headline: headlineFor(kind, named ? displayName(voter) : "Someone"),
      title: poll.title,
      path: `/p/${poll.key}`,
      body: shown ? [describeChoices(poll, options, stance.choices), reason].filter((x) => x !== "").join("\n\n") || null : null,
      recipient_message: null
    }
  })
}

