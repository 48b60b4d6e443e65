/**
 * The whole visible thread as one Markdown document, in Loomio's newest format
 * (`ThreadMarkdownService`): front matter, title line, description (headings shifted down one level),
 * then the activity as nested blockquotes in thread order (`position_key`), one `>` level per reply depth.
 * Pure: the caller loads the records and has already checked that the thread is visible.
 */
import TurndownService from "turndown"
import type { BodyFormat, Comment, Discussion, Id, Reaction, ThreadItem, Topic, User } from "../domain/records.js"
import { displayName } from "./users.js"

export interface ThreadDocument {
  readonly topic: Topic
  readonly discussion: Discussion
  /** the group's full name; undefined for a thread without a group */
  readonly groupName: string | undefined
  readonly items: ReadonlyArray<ThreadItem>
  readonly comments: ReadonlyMap<Id, Comment>
  readonly reactions: ReadonlyArray<Reaction>
  readonly users: ReadonlyMap<Id, User>
}

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", emDelimiter: "_", bulletListMarker: "-" })

/** HTML bodies become Markdown; Markdown stays as written (line endings normalised). */
export const bodyMarkdown = (text: string, format: BodyFormat): string =>
  (format === "html" ? turndown.turndown(text) : text).replace(/\r\n?/g, "\n").trim()

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

const nameOf = (users: ReadonlyMap<Id, User>, id: Id | null) => {
  const u = id === null ? undefined : users.get(id)
  return u === undefined ? "Anonymous" : displayName(u)
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

/** Item kinds shown in the activity section (polls, votes and outcomes join them later). */
const ACTIVITY = new Set<ThreadItem["kind"]>(["new_comment"])

const itemLines = (doc: ThreadDocument, reactions: ReactionIndex, item: ThreadItem, level: number): Array<string> => {
  const comment = doc.comments.get(item.itemable_id)
  if (comment === undefined || comment.discarded_at !== null) return [quoted(level, "_Removed_")]
  const header = `**${nameOf(doc.users, comment.author_id)}** · ${stamp(comment.created_at)} · #${item.sequence_id}` +
    reactionGroups(reactions, "Comment", comment.id)
  const body = bodyMarkdown(comment.body, comment.body_format)
  return [header, ...(body === "" ? [] : ["", ...body.split("\n")])].map((line) => quoted(level, line))
}

export const renderThreadMarkdown = (doc: ThreadDocument): string => {
  const { topic, discussion } = doc
  const reactions = indexReactions(doc)
  const front = [
    "---",
    `key: ${JSON.stringify(discussion.key)}`,
    ...(doc.groupName === undefined ? [] : [`group: ${JSON.stringify(doc.groupName)}`]),
    `created: ${JSON.stringify(isoSeconds(discussion.created_at))}`,
    `last_activity: ${JSON.stringify(isoSeconds(topic.last_activity_at))}`,
    ...(topic.tags.length === 0 ? [] : [`tags: ${JSON.stringify(topic.tags)}`]),
    "---"
  ].join("\n")
  const title = `# Discussion: ${discussion.title} · ${nameOf(doc.users, discussion.author_id)} · ${stamp(discussion.created_at)}` +
    reactionGroups(reactions, "Discussion", discussion.id)
  const description = shiftHeadings(bodyMarkdown(discussion.description, discussion.description_format))

  const activity = doc.items
    .filter((i) => ACTIVITY.has(i.kind) && i.position_key !== null)
    .sort((a, b) => (a.position_key! < b.position_key! ? -1 : a.position_key! > b.position_key! ? 1 : 0))
  const lines: Array<string> = []
  activity.forEach((item, n) => {
    const level = Math.max(item.depth, 1)
    if (n > 0) lines.push(quoted(level - 1, ""))
    lines.push(...itemLines(doc, reactions, item, level))
  })

  return [front, title, ...(description === "" ? [] : [description]), lines.length === 0 ? "_No activity yet._" : lines.join("\n")]
    .join("\n\n") + "\n"
}
