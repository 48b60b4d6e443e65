/** A poll in a reader's words: its state, an option's name, a vote's choices, the results' columns (pages, exports). */
import type { Poll, PollOption, Polls, PollType, Rules } from "@convene/core"
import type { MessageKey } from "../layout/i18n.js"
import type { Reader } from "../layout/kit.js"

/** "Open · closes …", "Closed …" or "Draft", in the reader's words and zone. */
export const pollStateText = (who: Reader, p: Poll): string =>
  p.closed_at !== null
    ? who.t("poll.stateClosed", { time: who.time(p.closed_at) })
    : p.opened_at === null
    ? who.t("poll.stateDraft")
    : who.t("poll.stateOpen", { time: who.time(p.closing_at) })

/** One line about a poll in a thread: its type, state and turnout. */
export const pollSummary = (who: Reader, v: Polls.PollView): string =>
  `${who.t(`pollType.${v.poll.poll_type}` as MessageKey)} · ${pollStateText(who, v.poll)} · ${who.t("poll.voted", { cast: v.cast_count, voters: v.voters_count })}`

/** An option's name as a reader reads it: preset words translated, meeting times in their zone. */
export const optionLabel = (who: Reader, p: Poll, name: string): string => {
  if (p.poll_type === "meeting") return who.slot(name)
  if (p.poll_type === "proposal" || (p.poll_type === "count" && (name === "accept" || name === "decline"))) return who.t(`option.${name}` as MessageKey)
  return name
}

/** A vote's choices in words: the options it scores, highest first, with the score where the type has one. */
export const choiceText = (who: Reader, p: Poll, options: ReadonlyArray<PollOption>, choices: ReadonlyMap<number, number>): string =>
  options.flatMap((o) => {
    const score = choices.get(o.id) ?? 0
    return score > 0 ? [{ score, text: p.poll_type === "score" || p.poll_type === "dot_vote" ? `${optionLabel(who, p, o.name)} (${score})` : optionLabel(who, p, o.name) }] : []
  }).sort((a, b) => (p.poll_type === "ranked_choice" ? b.score - a.score : 0)).map((c) => c.text).join(", ")

/** The results table's number columns for a type, and each row's values. */
export const resultColumns = (who: Reader, type: PollType): { headers: Array<string>; values: (r: Rules.OptionResult) => Array<string | number> } => {
  switch (type) {
    case "score":
      return { headers: [who.t("poll.total"), who.t("poll.average")], values: (r) => [r.score, r.average] }
    case "ranked_choice":
      return { headers: [who.t("poll.points"), who.t("poll.votes")], values: (r) => [r.score, r.voter_count] }
    case "dot_vote":
      return { headers: [who.t("poll.dotsColumn"), who.t("poll.voters")], values: (r) => [r.score, r.voter_count] }
    case "meeting":
      return { headers: [who.t("poll.yes"), who.t("poll.maybe"), who.t("poll.no")], values: (r) => [r.yes, r.maybe, r.no] }
    default:
      return { headers: [who.t("poll.votes")], values: (r) => [r.score] }
  }
}
