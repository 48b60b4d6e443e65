/**
 * The whole visible thread as one Markdown document, in Loomio's newest format
 * (`ThreadMarkdownService`): front matter, title line, description (headings shifted down one level),
 * then the activity as nested blockquotes in thread order (`position_key`), one `>` level per reply depth.
 * Pure: the caller loads the records and has already checked that the thread is visible.
 */
import type TurndownService from "turndown"
import { onFirstUse } from "../lazy.js"
import type { Outcome, Poll, PollOption, Stance } from "../domain/polls.js"
import type { BodyFormat, Comment, Discussion, Id, Reaction, ThreadItem, Topic, User } from "../domain/records.js"
import type { PollResults } from "./pollTypes.js"
import { plainMarkdown } from "./markdown.js"
import { displayName } from "./users.js"

/** A poll as the reader may see it: results null while hidden from them (hide_results). */
export interface PollSection {
  readonly poll: Poll
  readonly options: ReadonlyArray<PollOption>
  readonly results: PollResults | null
}

export interface ThreadDocument {
  readonly topic: Topic
  /** undefined for a standalone poll's thread (whose poll is `topic.topicable_id`) */
  readonly discussion: Discussion | undefined
  /** the group's full name; undefined for a thread without a group */
  readonly groupName: string | undefined
  readonly items: ReadonlyArray<ThreadItem>
  readonly comments: ReadonlyMap<Id, Comment>
  readonly reactions: ReadonlyArray<Reaction>
  readonly users: ReadonlyMap<Id, User>
  readonly polls: ReadonlyMap<Id, PollSection>
  /** only the ballots the reader may see (their own; others' when results are visible and the poll is not anonymous) */
  readonly stances: ReadonlyMap<Id, Stance>
  readonly outcomes: ReadonlyMap<Id, Outcome>
}

const turndown = onFirstUse<typeof TurndownService, TurndownService>("turndown", (T) =>
  new T({ headingStyle: "atx", codeBlockStyle: "fenced", emDelimiter: "_", bulletListMarker: "-" }))

/** HTML bodies become Markdown; Markdown stays as written (line endings normalised). */
export const bodyMarkdown = (text: string, format: BodyFormat): string =>
  (format === "html" ? turndown().turndown(text) : text).replace(/\r\n?/g, "\n").trim()

/** `# Purpose` becomes `## Purpose` (outside fenced code), so the description sits under the title. */
export const shiftHeadings = (markdown: string): string => {
  let fence: string | null = null
  return markdown.split("\n").map((line) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)
    if (f !== null) {
      if (fence === null) fence = f[1]!.slice(0, 3)
      else if (f[1]!.startsWith(fence)) fence = null
      return line
    }
    return fence === null && /^#{1,5}(\s|$)/.test(line) ? `#${line}` : line
  }).join("\n")
}

/** ISO-8601 UTC without milliseconds, as Ruby's `iso8601`. */
const isoSeconds = (iso: string) => iso.replace(/\.\d+Z$/, "Z")
/** `YYYY-MM-DD HH:MM` in UTC. */
export const stamp = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`

/** A person's name as the document shows it: plain text, escaped (it never becomes a link, an image or markup). */
const nameOf = (users: ReadonlyMap<Id, User>, id: Id | null) => {
  const u = id === null ? undefined : users.get(id)
  return u === undefined ? "Anonymous" : plainMarkdown(displayName(u))
}

/** Reactions by record, each record's grouped by reaction in order of first use. */
type ReactionIndex = ReadonlyMap<string, Map<string, Array<string>>>

const indexReactions = (doc: ThreadDocument): ReactionIndex => {
  const index = new Map<string, Map<string, Array<string>>>()
  for (const r of doc.reactions) {
    const key = `${r.reactable_type}:${r.reactable_id}`
    const groups = index.get(key) ?? new Map<string, Array<string>>()
    index.set(key, groups)
    const names = groups.get(r.reaction) ?? []
    names.push(nameOf(doc.users, r.user_id))
    groups.set(r.reaction, names)
  }
  return index
}

/** ` · 👍 Ada, Bob` per reaction; names sorted. */
const reactionGroups = (index: ReactionIndex, type: Reaction["reactable_type"], id: Id): string => {
  const groups = index.get(`${type}:${id}`)
  if (groups === undefined) return ""
  return [...groups].map(([reaction, names]) => ` · ${reaction} ${[...names].sort((a, b) => a.localeCompare(b)).join(", ")}`).join("")
}

const quoted = (level: number, line: string) => (line === "" ? "> ".repeat(level).trimEnd() : "> ".repeat(level) + line)

/** Item kinds shown in the activity section. */
const ACTIVITY = new Set<ThreadItem["kind"]>(["new_comment", "poll_created", "stance_created", "stance_updated", "outcome_created"])

const POLL_TYPE_NAMES: Record<Poll["poll_type"], string> = {
  proposal: "Proposal", poll: "Poll", count: "Count", score: "Score", ranked_choice: "Ranked choice", meeting: "Meeting", dot_vote: "Dot vote"
}

const pollStatus = (p: Poll) =>
  p.closed_at !== null ? "Closed" : p.opened_at === null ? "Draft (not open for voting)" : `Open until ${stamp(p.closing_at!)}`

/** The choices of a ballot as one line: "agree", "Red, Blue", "A 5, B 2". */
export const describeChoices = (poll: Poll, options: ReadonlyArray<PollOption>, choices: ReadonlyMap<Id, number>): string => {
  const scored = ["score", "ranked_choice", "dot_vote", "meeting"].includes(poll.poll_type)
  return options
    .filter((o) => choices.has(o.id) && (scored || choices.get(o.id)! > 0))
    .map((o) => (scored ? `${o.name} ${choices.get(o.id)}` : o.name))
    .join(", ")
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ")
const row = (cells: ReadonlyArray<string | number>) => `| ${cells.map((c) => cell(String(c))).join(" | ")} |`

/** `### Current results`: a table per poll type, or why it is hidden from the reader. */
const resultsLines = (doc: ThreadDocument, section: PollSection): Array<string> => {
  const { poll, results } = section
  if (results === null) {
    return [poll.hide_results === "until_closed" ? "_Hidden until the poll closes._" : "_Hidden until the viewer votes._"]
  }
  const voters = (o: { voter_ids: ReadonlyArray<Id>; voter_count: number }) => {
    if (poll.anonymous) return "Anonymous"
    if (o.voter_count === 0) return "No voters"
    const names = o.voter_ids.map((id) => nameOf(doc.users, id)).sort((a, b) => a.localeCompare(b)).join(", ")
    return o.voter_count > o.voter_ids.length ? `${names} and ${o.voter_count - o.voter_ids.length} more` : names
  }
  const r = results.options
  switch (poll.poll_type) {
    case "score":
      return [row(["Option", "Score", "Average", "Voters"]), row(["---", "---", "---", "---"]),
        ...r.map((o) => row([o.name, o.score, o.average, voters(o)]))]
    case "ranked_choice":
      return [row(["Rank", "Option", "Points", "Average"]), row(["---", "---", "---", "---"]),
        ...r.map((o) => row([o.rank, o.name, o.score, o.average]))]
    case "dot_vote":
      return [row(["Option", "Dots", "% of dots", "Voters"]), row(["---", "---", "---", "---"]),
        ...r.map((o) => row([o.name, o.score, `${o.score_percent}%`, voters(o)]))]
    case "meeting":
      return [row(["Time", "Yes", "Maybe", "No"]), row(["---", "---", "---", "---"]), ...r.map((o) => row([o.name, o.yes, o.maybe, o.no]))]
    default: {
      const undecided = results.voters_count === 0 ? 0 : Math.round((results.undecided_count / results.voters_count) * 10000) / 100
      return [row(["Option", "Votes", "% of votes cast", "% of eligible voters", "Voters"]), row(["---", "---", "---", "---", "---"]),
        ...r.map((o) => row([o.name, o.voter_count, `${o.votes_cast_percent}%`, `${o.voter_percent}%`, voters(o)])),
        row(["Undecided", results.undecided_count, "", `${undecided}%`, ""])]
    }
  }
}

/** A poll's bullets, details and results. */
const pollBody = (doc: ThreadDocument, section: PollSection): Array<string> => {
  const { poll } = section
  const details = shiftHeadings(bodyMarkdown(poll.details, poll.details_format))
  return [
    `- **Status:** ${pollStatus(poll)}`,
    ...(poll.anonymous ? ["- **Anonymous voting:** Yes"] : []),
    `- **Options:** ${section.options.map((o) => plainMarkdown(o.name)).join("; ")}`,
    ...(details === "" ? [] : ["", ...details.split("\n")]),
    "",
    "### Current results",
    "",
    ...resultsLines(doc, section)
  ]
}

/** The lines of one quoted item (comment, vote or outcome); empty when the reader may not see it. */
const itemLines = (doc: ThreadDocument, reactions: ReactionIndex, item: ThreadItem, level: number): Array<string> => {
  const block = (header: string, body: string) =>
    [header, ...(body === "" ? [] : ["", ...body.split("\n")])].map((line) => quoted(level, line))
  switch (item.itemable_type) {
    case "Stance": {
      const stance = doc.stances.get(item.itemable_id)
      const section = stance === undefined ? undefined : doc.polls.get(stance.poll_id)
      if (stance === undefined || section === undefined || section.poll.anonymous) return []
      const choice = describeChoices(section.poll, section.options, stance.choices)
      const header = `**${nameOf(doc.users, stance.participant_id)}** voted **${choice}**${stance.latest ? "" : " (superseded)"} · ` +
        `${stamp(stance.cast_at ?? stance.created_at)} · #${item.sequence_id}` + reactionGroups(reactions, "Stance", stance.id)
      return block(header, stance.reason === null ? "" : bodyMarkdown(stance.reason, stance.reason_format))
    }
    case "Outcome": {
      const outcome = doc.outcomes.get(item.itemable_id)
      if (outcome === undefined) return [quoted(level, "_Removed_")]
      const header = `**${nameOf(doc.users, outcome.author_id)}** shared an outcome · ${stamp(outcome.created_at)} · #${item.sequence_id}` +
        reactionGroups(reactions, "Outcome", outcome.id)
      const review = outcome.review_on === null ? [] : [`- **Review date:** ${outcome.review_on}`, ""]
      return block(header, [...review, bodyMarkdown(outcome.statement, outcome.statement_format)].join("\n").trim())
    }
    default: {
      const comment = doc.comments.get(item.itemable_id)
      if (comment === undefined || comment.discarded_at !== null) return [quoted(level, "_Removed_")]
      const header = `**${nameOf(doc.users, comment.author_id)}** · ${stamp(comment.created_at)} · #${item.sequence_id}` +
        reactionGroups(reactions, "Comment", comment.id)
      return block(header, bodyMarkdown(comment.body, comment.body_format))
    }
  }
}

const byPositionKey = (a: ThreadItem, b: ThreadItem) => (a.position_key! < b.position_key! ? -1 : a.position_key! > b.position_key! ? 1 : 0)

export const renderThreadMarkdown = (doc: ThreadDocument): string => {
  const { topic, discussion } = doc
  const reactions = indexReactions(doc)
  const ownPoll = discussion === undefined && topic.topicable_id !== null ? doc.polls.get(topic.topicable_id) : undefined
  const head = discussion ?? ownPoll?.poll
  if (head === undefined) return "_Removed_\n"
  const front = [
    "---",
    `key: ${JSON.stringify(head.key)}`,
    ...(doc.groupName === undefined ? [] : [`group: ${JSON.stringify(doc.groupName)}`]),
    `created: ${JSON.stringify(isoSeconds(head.created_at))}`,
    `last_activity: ${JSON.stringify(isoSeconds(topic.last_activity_at))}`,
    ...(topic.tags.length === 0 ? [] : [`tags: ${JSON.stringify(topic.tags)}`]),
    "---"
  ].join("\n")
  const title = discussion !== undefined
    ? `# Discussion: ${plainMarkdown(discussion.title)} · ${nameOf(doc.users, discussion.author_id)} · ${stamp(discussion.created_at)}` +
      reactionGroups(reactions, "Discussion", discussion.id)
    : `# Poll: ${plainMarkdown(ownPoll!.poll.title)} · ${nameOf(doc.users, ownPoll!.poll.author_id)} · ${stamp(ownPoll!.poll.created_at)}` +
      reactionGroups(reactions, "Poll", ownPoll!.poll.id)
  const overview = discussion !== undefined
    ? shiftHeadings(bodyMarkdown(discussion.description, discussion.description_format))
    : ["## Poll", "", ...pollBody(doc, ownPoll!)].join("\n")

  // items under a poll of the thread start one quote level in (the poll is a heading, not a quote)
  const byId = new Map(doc.items.map((i) => [i.id, i]))
  const underPoll = (item: ThreadItem): boolean => {
    for (let p = item.parent_id === null ? undefined : byId.get(item.parent_id); p !== undefined; p = p.parent_id === null ? undefined : byId.get(p.parent_id)) {
      if (p.kind === "poll_created" && p.depth > 0) return true
    }
    return false
  }
  const activity = doc.items.filter((i) => ACTIVITY.has(i.kind) && i.position_key !== null && i.depth > 0).sort(byPositionKey)
  const lines: Array<string> = []
  for (const item of activity) {
    if (item.kind === "poll_created") {
      const section = doc.polls.get(item.itemable_id)
      if (section === undefined) continue
      const p = section.poll
      if (lines.length > 0) lines.push("")
      lines.push(`## ${POLL_TYPE_NAMES[p.poll_type]}: ${plainMarkdown(p.title)} · ${nameOf(doc.users, p.author_id)} · ${stamp(p.created_at)} · #${item.sequence_id}` +
        reactionGroups(reactions, "Poll", p.id), "", ...pollBody(doc, section))
      continue
    }
    const level = Math.max(item.depth - (underPoll(item) ? 1 : 0), 1)
    const block = itemLines(doc, reactions, item, level)
    if (block.length === 0) continue
    if (lines.length > 0) lines.push(quoted(level - 1, ""))
    lines.push(...block)
  }

  return [front, title, ...(overview === "" ? [] : [overview]), lines.length === 0 ? "_No activity yet._" : lines.join("\n")]
    .join("\n\n") + "\n"
}
