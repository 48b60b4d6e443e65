/**
 * `convene import loomio FILE` (decisions §7): a Loomio group export into this database, in one transaction.
 *
 * The file is streamed twice over, never held whole: first every line is read, checked against its table's
 * declaration (domain/loomio.ts) and staged in a temporary table; then, holding the write lock, every record
 * gets its new id up front (so references may point forwards, as Loomio's files do), and the tables are
 * written parents first. The triggers keep search, poll results and group counters as for any other write;
 * thread positions are derived once at the end from the parent structure.
 *
 * Any bad line, unknown table or broken reference throws an ImportError naming the line and table, and the
 * transaction rolls back: nothing is written. A dry run does all of it and rolls back too.
 */
import { statSync } from "node:fs"
import { REACTABLE_TYPES, THREAD_ITEM_KINDS } from "../../domain/records.js"
import { ATTACHABLE_TABLES, ATTACHABLE_TYPES as ATTACHABLE } from "../../domain/files.js"
import { BUILTIN_TEMPLATE_KEYS } from "../../domain/templates.js"
import { pollSettings, PROPOSAL_OPTIONS } from "../../domain/polls.js"
import type { LoomioRecord } from "../../domain/loomio.js"
import { hashApiKey, newApiKey, newRecordKey } from "../../rules/keys.js"
import { ballotConfig } from "../../rules/pollTypes.js"
import { pollTemplateErrors } from "../../rules/templates.js"
import { formatRanges, parseRanges } from "../../rules/readState.js"
import { privateDefault } from "../../rules/topics.js"
import { normaliseEmail } from "../../rules/users.js"
import { type Db, DatabaseError, migrate, openFile } from "../../sqlite/db.js"
import { deriveThreads, searchInBulk } from "./derive.js"
import { bodyLengthErrors, cleanBody } from "../../rules/bodies.js"
import { type ImportedFile, ImportError, type ImportOptions, inserter, oldIds, stage, type Staged, staged, type StagedImport } from "./stage.js"

export { type ImportedFile, ImportError, type ImportOptions, type ImportProgress, type ImportResult, type StagedImport } from "./stage.js"

const ITEM_KINDS = new Set<string>(THREAD_ITEM_KINDS)
const ITEMABLE = new Set<string>(REACTABLE_TYPES)

export const importLoomioExport = async (dbFile: string, file: string, options: ImportOptions = {}): Promise<StagedImport> => {
  let size: number
  try {
    size = statSync(file).size
  } catch {
    throw new ImportError(`cannot read ${file}`)
  }
  if (size === 0) throw new ImportError(`${file} is empty`)
  const db = openFile(dbFile, false)
  try {
    migrate(db)
    // wait for a serving process's write as long as a large batch of it may take
    db.pragma("busy_timeout = 30000")
    const { skipped } = await stage(db, file, options.onProgress)
    return write(db, skipped, options)
  } catch (e) {
    if (e instanceof ImportError || e instanceof DatabaseError) throw e
    throw new ImportError((e as Error).message)
  } finally {
    db.close()
  }
}

class Rollback extends Error {}

const latest = (...times: ReadonlyArray<string | null>): string =>
  times.filter((x): x is string => x !== null).reduce((a, b) => (a > b ? a : b))

const write = (db: Db, skipped: Record<string, number>, options: ImportOptions): StagedImport => {
  let result: StagedImport | undefined
  const total = (db.prepare(`SELECT count(*) AS n FROM temp.import_lines`).get() as { n: number }).n
  try {
    db.transaction(() => {
      db.pragma("defer_foreign_keys = ON")
      const indexSearch = searchInBulk(db)
      result = writeAll(db, skipped, options, total)
      indexSearch()
      if (options.dryRun === true) throw new Rollback()
    }).immediate()
  } catch (e) {
    if (!(e instanceof Rollback)) throw e
  }
  return result!
}

/** New ids, given before anything is written: `max(id) + n` for the n-th record of a table. */
class Ids {
  private readonly maps = new Map<string, Map<number, number>>()
  private readonly next = new Map<string, number>()
  constructor(private readonly db: Db) {}
  map(table: string): Map<number, number> {
    let m = this.maps.get(table)
    if (m === undefined) this.maps.set(table, m = new Map())
    return m
  }
  fresh(table: string): number {
    let n = this.next.get(table)
    if (n === undefined) n = (this.db.prepare(`SELECT coalesce(max(id), 0) AS n FROM ${table}`).get() as { n: number }).n
    this.next.set(table, n + 1)
    return n + 1
  }
  assign(source: string, table: string, oldId: number): number {
    const id = this.fresh(table)
    this.map(source).set(oldId, id)
    return id
  }
}

/**
 * What the steps of a write share: the database, the new ids, what was written and dropped, and how a
 * reference of the file is resolved. The steps are plain functions over it (below), in the order they run.
 */
class Writer {
  readonly now: string
  readonly ids: Ids
  readonly imported: Record<string, number> = {}
  readonly warnings: Array<string> = []
  dropped = 0
  matched = 0
  private done = 0
  private readonly insertRow: ReturnType<typeof inserter>
  /** the thread of each discussion and poll of the file (by their ids in the file) */
  readonly topicOf = { discussions: new Map<number, number>(), polls: new Map<number, number>() }
  readonly groupsById = new Map<number, LoomioRecord<"groups">>()
  /** the poll of each option, ballot and outcome, and the discussion of each comment (ids in the file) */
  readonly optionPoll = new Map<number, number>()
  readonly stancePoll = new Map<number, number>()
  readonly outcomePoll = new Map<number, number>()
  readonly commentDiscussion = new Map<number, number>()
  readonly attachments: Array<ImportedFile> = []

  constructor(readonly db: Db, readonly skipped: Record<string, number>, readonly options: ImportOptions, readonly total: number) {
    this.now = (options.now ?? new Date()).toISOString()
    this.ids = new Ids(db)
    this.insertRow = inserter(db)
  }

  /** Writes a row and counts it under its convene table. */
  readonly insert = (table: string, row: Record<string, unknown>, at: { line: number; table: string }, orIgnore = false) => {
    const written = this.insertRow(table, row, at, orIgnore)
    if (written > 0) this.imported[table] = (this.imported[table] ?? 0) + written
    if (++this.done % 5000 === 0) this.options.onProgress?.({ phase: "writing", done: this.done, total: this.total })
  }

  /** A reference that must resolve: to a record of the file. */
  readonly must = (source: string, column: string, oldId: number, at: { line: number; table: string }): number => {
    const id = this.ids.map(source).get(oldId)
    if (id === undefined) throw new ImportError(`${column} ${oldId} refers to a ${source} record that is not in the file`, at.line, at.table)
    return id
  }

  /** Who did something (invited, revoked, discarded, closed): left empty when that person is not in the file. */
  readonly who = (oldId: number | null): number | null => {
    if (oldId === null) return null
    const id = this.ids.map("users").get(oldId)
    if (id === undefined) this.dropped++
    return id ?? null
  }

  readonly stampOf = (r: { created_at?: string | undefined }) => r.created_at ?? this.now
  readonly updatedOf = (r: { created_at?: string | undefined; updated_at?: string | undefined }) => r.updated_at ?? r.created_at ?? this.now

  /** Writes a thread: a `topics` record (newer format), or one described by its discussion or poll (older). */
  readonly writeTopic = (
    id: number,
    t: {
      group_id: number | null
      topicable_type: "Discussion" | "Poll"
      topicable_id: number | null
      private: boolean | null
      tags: ReadonlyArray<string> | null
      max_depth: number | null
      last_activity_at: string | null
      closed_at: string | null
      closer_id: number | null
      discarded_at: string | null
      created_at?: string | undefined
      updated_at?: string | undefined
    },
    at: { line: number; table: string },
    /** a `topics` record (newer format), not a thread described by its discussion or poll */
    own = false
  ) => {
    const group = t.group_id === null ? undefined : this.groupsById.get(t.group_id)
    this.insert("topics", {
      id,
      group_id: t.group_id === null ? null : this.must("groups", "group_id", t.group_id, at),
      topicable_type: t.topicable_type,
      topicable_id: t.topicable_id,
      private: t.private ?? (group === undefined ? true : privateDefault(group as never)),
      tags: JSON.stringify(t.tags ?? []),
      max_depth: t.max_depth ?? 3,
      last_activity_at: t.last_activity_at ?? this.stampOf(t),
      closed_at: t.closed_at,
      closer_id: this.who(t.closer_id),
      discarded_at: t.discarded_at,
      created_at: this.stampOf(t),
      // the older format has no thread row: its last change is the latest of what changed it
      updated_at: own ? this.updatedOf(t) : latest(this.updatedOf(t), t.last_activity_at, t.closed_at, t.discarded_at)
    }, at)
  }

  /** The thread a record lives in, and its new id. */
  readonly place = (type: string, oldId: number, column: string, at: { line: number; table: string }): { topic: number; id: number } => {
    switch (type) {
      case "Discussion":
        return { id: this.must("discussions", column, oldId, at), topic: this.topicOf.discussions.get(oldId)! }
      case "Comment": {
        const id = this.must("comments", column, oldId, at)
        return { id, topic: this.topicOf.discussions.get(this.commentDiscussion.get(oldId)!)! }
      }
      case "Poll":
        return { id: this.must("polls", column, oldId, at), topic: this.topicOf.polls.get(oldId)! }
      case "Stance":
        return { id: this.must("stances", column, oldId, at), topic: this.topicOf.polls.get(this.stancePoll.get(oldId)!)! }
      default:
        return { id: this.must("outcomes", column, oldId, at), topic: this.topicOf.polls.get(this.outcomePoll.get(oldId)!)! }
    }
  }
}

const writeAll = (db: Db, skipped: Record<string, number>, options: ImportOptions, total: number): StagedImport => {
  const w = new Writer(db, skipped, options, total)
  const groups = checkGroups(w)
  writeUsers(w)
  writeGroups(w, groups)
  writeMemberships(w)
  writePollTemplates(w)
  const threads = assignThreadIds(w)
  writeTopics(w, threads.topicRows)
  writeDiscussions(w)
  writePolls(w)
  writeBallots(w)
  writeOutcomes(w)
  writeComments(w)
  writeReactions(w)
  writeItems(w, threads.topicsBefore)
  writeReaders(w)
  placeAttachments(w)
  return finish(w, groups.roots)
}

/** Groups: refused when this database already holds one of them, or imported this export before. */
const checkGroups = (w: Writer) => {
  const { db, ids } = w
  const groupRows = [...staged(db, "groups")]
  if (groupRows.length === 0) throw new ImportError("the file has no groups record: it is not a group export")
  const inFile = new Set(groupRows.map((g) => g.record.id))
  const roots = groupRows.filter((g) => g.record.parent_id === null || !inFile.has(g.record.parent_id))
  for (const g of roots) {
    if (g.record.key === null) throw new ImportError("the top group has no key (the import remembers it to refuse a second import)", g.line, "groups")
    const before = db.prepare(`SELECT group_id, created_at FROM imports WHERE source_group_key = ?`).get(g.record.key) as
      | { group_id: number | null; created_at: string }
      | undefined
    if (before !== undefined) {
      throw new ImportError(
        `this export was imported already on ${before.created_at}` +
          (before.group_id === null ? "" : ` (group ${before.group_id})`) + `: importing it again is refused`
      )
    }
  }
  for (const g of groupRows) {
    if (g.record.key === null) continue
    const held = db.prepare(`SELECT id FROM groups WHERE key = ?`).get(g.record.key) as { id: number } | undefined
    if (held !== undefined) {
      throw new ImportError(`this database already holds group ${g.record.key} (id ${held.id}): importing it again is refused`, g.line, "groups")
    }
  }
  for (const g of groupRows) ids.assign("groups", "groups", g.record.id)
  const depthOf = (id: number, seen = 0): number => {
    const parent = groupRows.find((g) => g.record.id === id)?.record.parent_id ?? null
    return parent === null || !inFile.has(parent) || seen > groupRows.length ? 0 : 1 + depthOf(parent, seen + 1)
  }
  return { groupRows, inFile, roots, depthOf }
}

/** A body as every way in stores it (decisions §5): at most 1 MiB, html sanitised as the API sanitises it. */
const storedBody = (text: string, format: "md" | "html", column: string, at: { readonly line: number; readonly table: string }): string => {
  const tooLong = bodyLengthErrors(text)
  if (tooLong !== null) throw new ImportError(`${column} ${tooLong}`, at.line, at.table)
  return cleanBody(text, format)
}

/** Users: matched by e-mail (any letter case), others created with an API key nobody holds. */
const writeUsers = (w: Writer) => {
  const { db, ids, insert, warnings, stampOf, updatedOf } = w
  const byEmail = db.prepare(`SELECT id FROM users WHERE email = ?`)
  const usernameTaken = db.prepare(`SELECT 1 FROM users WHERE username = ?`)
  const newUsers: Array<Staged<"users">> = []
  for (const u of staged(db, "users")) {
    const email = u.record.email === null ? null : normaliseEmail(u.record.email)
    const existing = email === null ? undefined : (byEmail.get(email) as { id: number } | undefined)
    if (existing !== undefined) {
      ids.map("users").set(u.record.id, existing.id)
      w.matched++
    } else {
      ids.assign("users", "users", u.record.id)
      newUsers.push(u)
    }
  }
  const emailsWritten = new Map<string, number>()
  const usernames = new Set<string>()
  for (const u of newUsers) {
    const r = u.record
    const email = r.email === null ? null : normaliseEmail(r.email)
    if (email !== null && emailsWritten.has(email)) {
      // two people of the file with one address (letter case aside): they are one person here
      ids.map("users").set(r.id, emailsWritten.get(email)!)
      continue
    }
    let username = r.username
    if (username !== null && (usernames.has(username) || usernameTaken.get(username) !== undefined)) {
      warnings.push(`user ${r.id}: the username ${username} is taken here; imported without one`)
      username = null
    }
    if (username !== null) usernames.add(username)
    const id = ids.map("users").get(r.id)!
    if (email !== null) emailsWritten.set(email, id)
    insert("users", {
      id,
      name: r.name,
      username,
      email,
      country: r.country,
      is_admin: false,
      bot: r.bot,
      api_key_hash: hashApiKey(newApiKey()),
      deactivated_at: r.deactivated_at,
      created_at: stampOf(r),
      updated_at: updatedOf(r)
    }, { line: u.line, table: "users" })
  }
}

/** Groups, parents first; a handle taken here is dropped with a warning. */
const writeGroups = (w: Writer, { groupRows, inFile, depthOf }: ReturnType<typeof checkGroups>) => {
  const { db, ids, insert, who, warnings, stampOf, updatedOf, groupsById } = w
  const handleTaken = db.prepare(`SELECT 1 FROM groups WHERE handle = ?`)
  for (const g of [...groupRows].sort((a, b) => depthOf(a.record.id) - depthOf(b.record.id))) {
    const r = g.record
    let handle = r.handle
    if (handle !== null && handleTaken.get(handle) !== undefined) {
      warnings.push(`group ${r.name}: the handle ${handle} is taken here; imported without one`)
      handle = null
    }
    groupsById.set(r.id, r)
    insert("groups", {
      id: ids.map("groups").get(r.id),
      key: r.key ?? newRecordKey(),
      handle,
      name: r.name,
      description: r.description === null ? null : storedBody(r.description, "md", "description", { line: g.line, table: "groups" }),
      parent_id: r.parent_id === null || !inFile.has(r.parent_id) ? null : ids.map("groups").get(r.parent_id),
      creator_id: who(r.creator_id),
      is_visible_to_public: r.is_visible_to_public,
      is_visible_to_parent_members: r.is_visible_to_parent_members,
      discussion_privacy_options: r.discussion_privacy_options,
      parent_members_can_see_discussions: r.parent_members_can_see_discussions,
      members_can_start_discussions: r.members_can_start_discussions,
      members_can_edit_discussions: r.members_can_edit_discussions,
      members_can_edit_comments: r.members_can_edit_comments,
      members_can_raise_motions: r.members_can_raise_motions,
      members_can_vote: r.members_can_vote,
      members_can_add_members: r.members_can_add_members,
      admins_can_edit_user_content: r.admins_can_edit_user_content,
      members_can_delegate: r.members_can_delegate,
      delegation_limit: r.delegation_limit,
      // of the built-ins, those convene has (its own templates come as poll_templates)
      hidden_poll_templates: JSON.stringify((r.hidden_poll_templates ?? []).filter((k) => BUILTIN_TEMPLATE_KEYS.includes(k))),
      poll_template_positions: JSON.stringify(Object.fromEntries(Object.entries(r.poll_template_positions ?? {}).filter(([k]) => BUILTIN_TEMPLATE_KEYS.includes(k)))),
      created_at: stampOf(r),
      updated_at: updatedOf(r)
    }, { line: g.line, table: "groups" })
  }
}

/**
 * A group's own poll templates. A proposal whose options are not a proposal's four is a one-choice poll, as convene's
 * built-ins of that kind; a template convene's rules refuse is left out and said (the rest imports).
 */
const writePollTemplates = (w: Writer) => {
  const { db, ids, insert, must, who, warnings, skipped, stampOf, updatedOf } = w
  for (const t of staged(db, "poll_templates")) {
    const r = t.record
    const at = { line: t.line, table: "poll_templates" }
    const groupId = must("groups", "group_id", r.group_id, at)
    const names = (r.poll_options ?? []).map((o) => (typeof o === "string" ? o : o.name))
    const asProposal = names.every((n) => (PROPOSAL_OPTIONS as ReadonlyArray<string>).includes(n.toLowerCase()))
    const poll_type = r.poll_type === "proposal" && !asProposal ? "poll" as const : r.poll_type
    const numbers = { min_score: r.min_score, max_score: r.max_score, minimum_stance_choices: r.minimum_stance_choices, maximum_stance_choices: r.maximum_stance_choices, dots_per_person: r.dots_per_person }
    const settings = {
      ...pollSettings(r, true),
      ...Object.fromEntries(Object.entries(numbers).filter(([, v]) => v !== null)),
      ...(poll_type !== r.poll_type ? { maximum_stance_choices: 1 } : {})
    }
    const input = {
      process_name: (r.process_name ?? r.title ?? "").trim(), process_subtitle: (r.process_subtitle ?? "").trim(), poll_type, details: r.details ?? "",
      options: r.poll_type === "proposal" && asProposal ? names.map((n) => n.toLowerCase()) : names, default_duration_in_days: r.default_duration_in_days ?? 7, settings
    }
    const problem = pollTemplateErrors(input, 0)
    if (problem !== null) {
      warnings.push(`line ${t.line}: the poll template ${JSON.stringify(input.process_name)} was left out (${problem[0]} ${problem[1]})`)
      skipped["poll_templates (not valid here)"] = (skipped["poll_templates (not valid here)"] ?? 0) + 1
      continue
    }
    insert("poll_templates", {
      id: ids.assign("poll_templates", "poll_templates", r.id),
      group_id: groupId,
      author_id: who(r.author_id),
      source_key: r.source_key !== null && BUILTIN_TEMPLATE_KEYS.includes(r.source_key) ? r.source_key : null,
      poll_type,
      process_name: input.process_name,
      process_subtitle: input.process_subtitle,
      details: storedBody(input.details, r.details_format, "details", at),
      poll_options: JSON.stringify(input.options),
      default_duration_in_days: input.default_duration_in_days,
      settings: JSON.stringify(settings),
      position: r.position,
      discarded_at: r.discarded_at,
      created_at: stampOf(r),
      updated_at: updatedOf(r)
    }, at)
  }
}

/** Memberships. */
const writeMemberships = (w: Writer) => {
  const { db, ids, insert, must, who, stampOf, updatedOf } = w
  for (const m of staged(db, "memberships")) {
    const r = m.record
    const at = { line: m.line, table: "memberships" }
    insert("memberships", {
      id: ids.assign("memberships", "memberships", r.id),
      group_id: must("groups", "group_id", r.group_id, at),
      user_id: must("users", "user_id", r.user_id, at),
      inviter_id: who(r.inviter_id),
      admin: r.admin,
      delegate: r.delegate,
      title: r.title,
      accepted_at: r.accepted_at,
      revoked_at: r.revoked_at,
      revoker_id: who(r.revoker_id),
      created_at: stampOf(r),
      updated_at: updatedOf(r)
    }, at)
  }
}

/** Threads' ids first (discussions, polls, comments, stances, outcomes, options, items), so that any record may name any other whatever the order of the file. */
const assignThreadIds = (w: Writer) => {
  const { db, ids } = w
  const topicsBefore = (db.prepare(`SELECT coalesce(max(id), 0) AS n FROM topics`).get() as { n: number }).n
  const topicRows = [...staged(db, "topics")]
  for (const t of topicRows) ids.assign("topics", "topics", t.record.id)
  for (const id of oldIds(db, "discussions")) ids.assign("discussions", "discussions", id)
  for (const id of oldIds(db, "polls")) ids.assign("polls", "polls", id)
  for (const id of oldIds(db, "poll_options")) ids.assign("poll_options", "poll_options", id)
  for (const id of oldIds(db, "stances")) ids.assign("stances", "stances", id)
  for (const id of oldIds(db, "outcomes")) ids.assign("outcomes", "outcomes", id)
  for (const id of oldIds(db, "comments")) ids.assign("comments", "comments", id)
  for (const id of oldIds(db, "events", "topic_items")) ids.assign("items", "topic_items", id)
  return { topicsBefore, topicRows }
}

/** The newer format's topics; the older format's threads live on their discussion or poll. */
const writeTopics = (w: Writer, topicRows: ReadonlyArray<Staged<"topics">>) => {
  const { ids, must, writeTopic } = w
  for (const t of topicRows) {
    const r = t.record
    const at = { line: t.line, table: "topics" }
    const topicable = r.topicable_id === null
      ? null
      : must(r.topicable_type === "Discussion" ? "discussions" : "polls", "topicable_id", r.topicable_id, at)
    writeTopic(ids.map("topics").get(r.id)!, {
      ...r,
      topicable_id: topicable,
      closed_at: r.closed_at ?? r.locked_at,
      closer_id: r.closer_id ?? r.locker_id
    }, at, true)
  }
}

/** Discussions, each with its thread (made here for the older format). */
const writeDiscussions = (w: Writer) => {
  const { db, ids, insert, must, who, stampOf, updatedOf, writeTopic, topicOf } = w
  const discussionTopic = (r: LoomioRecord<"discussions">, at: { line: number; table: string }) => {
    if (r.topic_id !== null) return must("topics", "topic_id", r.topic_id, at)
    if (r.group_id === null) throw new ImportError("the discussion has neither group_id nor topic_id", at.line, at.table)
    const id = ids.fresh("topics")
    writeTopic(id, {
      ...r,
      topicable_type: "Discussion",
      topicable_id: ids.map("discussions").get(r.id)!,
      last_activity_at: r.last_activity_at
    }, at)
    return id
  }

  const keyTaken = (table: "discussions" | "polls") => db.prepare(`SELECT 1 FROM ${table} WHERE key = ?`)
  const discussionKeyTaken = keyTaken("discussions")
  for (const d of staged(db, "discussions")) {
    const r = d.record
    const at = { line: d.line, table: "discussions" }
    const topicId = discussionTopic(r, at)
    topicOf.discussions.set(r.id, topicId)
    insert("discussions", {
      id: ids.map("discussions").get(r.id),
      key: r.key !== null && discussionKeyTaken.get(r.key) === undefined ? r.key : newRecordKey(),
      topic_id: topicId,
      author_id: must("users", "author_id", r.author_id, at),
      title: r.title,
      description: storedBody(r.description ?? "", r.description_format, "description", at),
      description_format: r.description_format,
      discarded_at: r.discarded_at,
      discarded_by: who(r.discarded_by),
      created_at: stampOf(r),
      updated_at: updatedOf(r)
    }, at)
  }
}

/** Polls: in a discussion's thread, a topic's, or a thread of their own. */
const writePolls = (w: Writer) => {
  const { db, ids, insert, must, who, stampOf, updatedOf, writeTopic, topicOf, now } = w
  const pollKeyTaken = db.prepare(`SELECT 1 FROM polls WHERE key = ?`)
  const soon = new Date(Date.parse(now) + 24 * 3600 * 1000).toISOString()
  for (const p of staged(db, "polls")) {
    const r = p.record
    const at = { line: p.line, table: "polls" }
    const id = ids.map("polls").get(r.id)!
    let topicId: number
    if (r.topic_id !== null) topicId = must("topics", "topic_id", r.topic_id, at)
    else if (r.discussion_id !== null) {
      must("discussions", "discussion_id", r.discussion_id, at)
      topicId = topicOf.discussions.get(r.discussion_id)!
    } else {
      topicId = ids.fresh("topics")
      writeTopic(topicId, {
        ...r,
        topicable_type: "Poll",
        topicable_id: id,
        last_activity_at: r.last_activity_at,
        // a poll's own closing is the poll's; its thread is closed only when a topic says so
        closed_at: null,
        discarded_at: r.discarded_at
      }, at)
    }
    topicOf.polls.set(r.id, topicId)
    const config = ballotConfig(r.poll_type, {
      ...(r.min_score === null ? {} : { min_score: r.min_score }),
      ...(r.max_score === null ? {} : { max_score: r.max_score }),
      ...(r.minimum_stance_choices === null ? {} : { minimum_stance_choices: r.minimum_stance_choices }),
      ...(r.maximum_stance_choices === null ? {} : { maximum_stance_choices: r.maximum_stance_choices }),
      ...(r.dots_per_person === null ? {} : { dots_per_person: r.dots_per_person }),
      ...(r.can_respond_maybe === null ? {} : { can_respond_maybe: r.can_respond_maybe })
    })
    insert("polls", {
      ...config,
      id,
      key: r.key !== null && pollKeyTaken.get(r.key) === undefined ? r.key : newRecordKey(),
      topic_id: topicId,
      author_id: must("users", "author_id", r.author_id, at),
      title: r.title,
      details: storedBody(r.details ?? "", r.details_format, "details", at),
      details_format: r.details_format,
      closing_at: r.closing_at,
      opened_at: r.opened_at ?? (r.closing_at === null ? null : stampOf(r)),
      closed_at: r.closed_at,
      discarded_at: r.discarded_at,
      discarded_by: who(r.discarded_by),
      ...pollSettings(r, true),
      // a built-in template's key is kept, and the group's own template the file brought
      poll_template_key: r.poll_template_key !== null && BUILTIN_TEMPLATE_KEYS.includes(r.poll_template_key) ? r.poll_template_key : null,
      poll_template_id: r.poll_template_id === null ? null : ids.map("poll_templates").get(r.poll_template_id) ?? null,
      // the reminder of a poll closing within a day was the old server's to send
      closing_soon_sent_at: r.closed_at === null && r.closing_at !== null && r.closing_at <= soon ? now : null,
      created_at: stampOf(r),
      updated_at: updatedOf(r)
    }, at)
  }
}

/** Options, ballots and their choices (a choice of another poll's option is refused). */
const writeBallots = (w: Writer) => {
  const { db, ids, insert, must, who, stampOf, updatedOf, optionPoll, stancePoll } = w
  for (const o of staged(db, "poll_options")) {
    const r = o.record
    const at = { line: o.line, table: "poll_options" }
    const pollId = must("polls", "poll_id", r.poll_id, at)
    optionPoll.set(r.id, r.poll_id)
    insert("poll_options", { id: ids.map("poll_options").get(r.id), poll_id: pollId, name: r.name, priority: r.priority }, at)
  }


  for (const s of staged(db, "stances")) {
    const r = s.record
    const at = { line: s.line, table: "stances" }
    stancePoll.set(r.id, r.poll_id)
    insert("stances", {
      id: ids.map("stances").get(r.id),
      poll_id: must("polls", "poll_id", r.poll_id, at),
      participant_id: must("users", "participant_id", r.participant_id, at),
      inviter_id: who(r.inviter_id),
      latest: r.latest,
      cast_at: r.cast_at,
      reason: r.reason === null ? null : storedBody(r.reason, r.reason_format, "reason", at),
      reason_format: r.reason_format,
      revoked_at: r.revoked_at,
      revoker_id: who(r.revoker_id),
      created_at: stampOf(r),
      updated_at: updatedOf(r)
    }, at)
  }

  for (const c of staged(db, "stance_choices")) {
    const r = c.record
    const at = { line: c.line, table: "stance_choices" }
    const stanceId = must("stances", "stance_id", r.stance_id, at)
    const optionId = must("poll_options", "poll_option_id", r.poll_option_id, at)
    if (optionPoll.get(r.poll_option_id) !== stancePoll.get(r.stance_id)) {
      throw new ImportError(`poll_option_id ${r.poll_option_id} is an option of another poll than the stance's`, at.line, at.table)
    }
    insert("stance_choices", { stance_id: stanceId, poll_option_id: optionId, score: r.score }, at)
  }
}

/** Outcomes; a review already due was the old server's to send. */
const writeOutcomes = (w: Writer) => {
  const { db, ids, insert, must, stampOf, updatedOf, optionPoll, outcomePoll, now } = w
  const today = now.slice(0, 10)
  for (const o of staged(db, "outcomes")) {
    const r = o.record
    const at = { line: o.line, table: "outcomes" }
    outcomePoll.set(r.id, r.poll_id)
    if (r.poll_option_id !== null && optionPoll.get(r.poll_option_id) !== r.poll_id) {
      throw new ImportError(`poll_option_id ${r.poll_option_id} is not an option of poll ${r.poll_id}`, at.line, at.table)
    }
    const reviewOn = r.review_on === null ? null : r.review_on.slice(0, 10)
    insert("outcomes", {
      id: ids.map("outcomes").get(r.id),
      poll_id: must("polls", "poll_id", r.poll_id, at),
      author_id: must("users", "author_id", r.author_id, at),
      statement: storedBody(r.statement, r.statement_format, "statement", at),
      statement_format: r.statement_format,
      poll_option_id: r.poll_option_id === null ? null : ids.map("poll_options").get(r.poll_option_id),
      review_on: reviewOn,
      latest: r.latest,
      // a review already due was the old server's to send
      review_sent_at: reviewOn !== null && reviewOn <= today ? now : null,
      created_at: stampOf(r),
      updated_at: updatedOf(r)
    }, at)
  }
}

/** Comments: the discussion is named (older format) or reached through the parent chain (newer format). */
const writeComments = (w: Writer) => {
  const { db, ids, insert, must, who, stampOf, updatedOf, commentDiscussion, skipped } = w
  const commentParent = new Map<number, { type: string | null; id: number | null; discussion: number | null; line: number }>()
  for (const c of staged(db, "comments")) {
    commentParent.set(c.record.id, { type: c.record.parent_type, id: c.record.parent_id, discussion: c.record.discussion_id, line: c.line })
  }
  const discussionOfComment = (id: number, hops = 0): number | null => {
    const c = commentParent.get(id)
    if (c === undefined || hops > commentParent.size) return null
    if (c.discussion !== null) return c.discussion
    if (c.type === "Discussion") return c.id
    if (c.type === "Comment" && c.id !== null) return discussionOfComment(c.id, hops + 1)
    return null
  }
  for (const c of staged(db, "comments")) {
    const r = c.record
    const at = { line: c.line, table: "comments" }
    const discussion = discussionOfComment(r.id)
    if (discussion === null) {
      if (r.parent_type === "Poll" || r.parent_type === "Stance") {
        // a comment on a poll outside any discussion: convene's comments belong to discussions
        skipped["comments (on polls)"] = (skipped["comments (on polls)"] ?? 0) + 1
        ids.map("comments").delete(r.id)
        continue
      }
      throw new ImportError("the comment names no discussion (discussion_id, or a parent of type Discussion or Comment)", at.line, at.table)
    }
    commentDiscussion.set(r.id, discussion)
    const replyTo = r.parent_type === "Comment" || (r.parent_type === null && r.discussion_id !== null) ? r.parent_id : null
    insert("comments", {
      id: ids.map("comments").get(r.id),
      discussion_id: must("discussions", "discussion_id", discussion, at),
      parent_id: replyTo === null ? null : must("comments", "parent_id", replyTo, at),
      author_id: must("users", "user_id", r.user_id, at),
      body: storedBody(r.body ?? "", r.body_format, "body", at),
      body_format: r.body_format,
      edited_at: r.edited_at,
      discarded_at: r.discarded_at,
      discarded_by: who(r.discarded_by),
      created_at: stampOf(r),
      updated_at: updatedOf(r)
    }, at)
  }
}

/** Reactions on the records convene has. */
const writeReactions = (w: Writer) => {
  const { db, ids, insert, must, stampOf, place, skipped } = w
  for (const x of staged(db, "reactions")) {
    const r = x.record
    const at = { line: x.line, table: "reactions" }
    if (!ITEMABLE.has(r.reactable_type)) {
      skipped[`reactions (on ${r.reactable_type})`] = (skipped[`reactions (on ${r.reactable_type})`] ?? 0) + 1
      continue
    }
    const { id, topic } = place(r.reactable_type, r.reactable_id, "reactable_id", at)
    insert("reactions", {
      id: ids.assign("reactions", "reactions", r.id),
      topic_id: topic,
      reactable_type: r.reactable_type,
      reactable_id: id,
      user_id: must("users", "user_id", r.user_id, at),
      reaction: r.reaction,
      created_at: stampOf(r)
    }, at, true)

  }
}

/** Thread items: Loomio's order (sequence_id) and tree (parent_id) are kept; depth, positions and keys are derived from that tree, as convene derives them when it appends an item. */
const writeItems = (w: Writer, topicsBefore: number) => {
  const { db, ids, insert, must, who, stampOf, place, topicOf, skipped } = w
  const topicable = db.prepare(`SELECT topicable_type, topicable_id FROM topics WHERE id = ?`)
  const eventInFile = db.prepare(`SELECT 1 FROM temp.import_lines WHERE tbl IN ('events', 'topic_items') AND old_id = ?`)
  const itemsSeen = new Map<number, { topic: number; parent: number | null; line: number }>()
  /** the highest sequence_id of each thread so far, and the items Loomio left unnumbered (standalone polls) */
  const lastSequence = new Map<number, number>()
  const unnumbered: Array<{ item: Record<string, unknown> & { topic_id: number; created_at: string }; at: { line: number; table: string }; oldId: number }> = []
  for (const e of staged(db, "events", "topic_items")) {
    const r = e.record
    const at = { line: e.line, table: "events" }
    const type = r.eventable_type ?? r.itemable_type
    const oldItemable = r.eventable_id ?? r.itemable_id
    if (!ITEM_KINDS.has(r.kind) || type === null || oldItemable === null || !ITEMABLE.has(type)) {
      skipped[`events (${r.kind})`] = (skipped[`events (${r.kind})`] ?? 0) + 1
      ids.map("items").delete(r.id)
      continue
    }
    const { id: itemable, topic: derived } = place(type, oldItemable, "eventable_id", at)
    const topic = r.topic_id !== null
      ? must("topics", "topic_id", r.topic_id, at)
      : r.discussion_id !== null
      ? (must("discussions", "discussion_id", r.discussion_id, at), topicOf.discussions.get(r.discussion_id)!)
      : derived
    const owner = topicable.get(topic) as { topicable_type: string; topicable_id: number | null }
    const isRoot = r.parent_id === null && (r.kind === "new_discussion" || r.kind === "poll_created") && owner.topicable_id === itemable
    const sequence = r.sequence_id ?? (isRoot ? 0 : null)
    // Loomio numbers sequence_id only inside a discussion: a standalone poll's votes, outcome and closing carry
    // none, and are numbered below in their order, as Loomio's own backfill of standalone poll items does
    if (sequence === null && owner.topicable_type !== "Poll") {
      throw new ImportError("sequence_id is missing (only a thread's first item, or an item of a standalone poll, may omit it)", at.line, at.table)
    }
    itemsSeen.set(r.id, { topic, parent: r.parent_id, line: e.line })
    const item = {
      id: ids.map("items").get(r.id),
      topic_id: topic,
      kind: r.kind,
      sequence_id: sequence,
      parent_id: null,
      itemable_type: type,
      itemable_id: itemable,
      actor_id: who(r.user_id),
      created_at: stampOf(r)
    }
    if (sequence === null) unnumbered.push({ item, at, oldId: r.id })
    else {
      insert("topic_items", item, at)
      lastSequence.set(topic, Math.max(lastSequence.get(topic) ?? 0, sequence))
    }
  }
  unnumbered.sort((a, b) => a.item.created_at.localeCompare(b.item.created_at) || a.oldId - b.oldId)
  for (const { item, at } of unnumbered) {
    const next = (lastSequence.get(item.topic_id) ?? 0) + 1
    lastSequence.set(item.topic_id, next)
    insert("topic_items", { ...item, sequence_id: next }, at)
  }
  const setParent = db.prepare(`UPDATE topic_items SET parent_id = ? WHERE id = ?`)
  for (const [oldId, item] of itemsSeen) {
    if (item.parent === null) continue
    const parent = ids.map("items").get(item.parent)
    if (parent === undefined) {
      // the parent is a Loomio event convene has no item for (or is missing): the thread's root adopts it
      if (eventInFile.get(item.parent) === undefined) {
        throw new ImportError(`parent_id ${item.parent} refers to an events record that is not in the file`, item.line, "events")
      }
      continue
    }
    if (itemsSeen.get(item.parent)!.topic !== item.topic) {
      throw new ImportError(`parent_id ${item.parent} is an item of another thread`, item.line, "events")
    }
    setParent.run(parent, ids.map("items").get(oldId))
  }
  deriveThreads(db, topicsBefore)
}

/** Readers: the invited, the guests, and everyone who opened a thread, with what they have read (decisions §13). */
const writeReaders = (w: Writer) => {
  const { db, ids, insert, must, who, stampOf, topicOf } = w
  for (const x of staged(db, "discussion_readers", "topic_readers")) {
    const r = x.record
    const at = { line: x.line, table: "discussion_readers" }
    const topic = r.topic_id !== null
      ? must("topics", "topic_id", r.topic_id, at)
      : r.discussion_id !== null
      ? (must("discussions", "discussion_id", r.discussion_id, at), topicOf.discussions.get(r.discussion_id)!)
      : r.poll_id !== null
      ? (must("polls", "poll_id", r.poll_id, at), topicOf.polls.get(r.poll_id)!)
      : null
    if (topic === null) throw new ImportError("the reader names no thread (discussion_id, poll_id or topic_id)", at.line, at.table)
    insert("topic_readers", {
      id: ids.assign("readers", "topic_readers", r.id),
      topic_id: topic,
      user_id: must("users", "user_id", r.user_id, at),
      inviter_id: who(r.inviter_id),
      guest: r.guest,
      revoked_at: r.revoked_at,
      created_at: stampOf(r),
      last_read_at: r.last_read_at,
      // as convene writes them (rules/readState.ts), whatever Loomio's text held
      read_ranges: r.read_ranges_string === null ? null : formatRanges(parseRanges(r.read_ranges_string)),
      dismissed_at: r.dismissed_at
    }, at, true)
  }
}

/**
 * Each file line placed on its record's new id, with the record's author as its uploader. Files of groups, people
 * and votes (pictures), and of records the import left out, have no place here: counted as left out.
 */
const placeAttachments = (w: Writer) => {
  const { db, ids, skipped, attachments } = w
  const authors = new Map<string, ReturnType<Db["prepare"]>>()
  for (const a of staged(db, "attachments")) {
    const r = a.record
    const type = ATTACHABLE.find((t) => t === r.record_type)
    const table = type === undefined ? undefined : ATTACHABLE_TABLES[type]
    const id = table === undefined ? undefined : ids.map(table).get(r.record_id)
    if (type === undefined || table === undefined || id === undefined) {
      const why = type === undefined ? `attachments (of ${r.record_type.slice(0, 32)})` : "attachments (of records left out)"
      skipped[why] = (skipped[why] ?? 0) + 1
      continue
    }
    let author = authors.get(table)
    if (author === undefined) authors.set(table, author = db.prepare(`SELECT author_id FROM ${table} WHERE id = ?`).pluck())
    attachments.push({
      line: a.line,
      record_type: type,
      record_id: id,
      uploader_id: author.get(id) as number,
      filename: r.filename,
      key: r.key,
      path: r.path ?? (r.url === null ? null : urlPath(r.url))
    })
  }
}

const urlPath = (url: string): string | null => {
  try {
    return new URL(url).pathname
  } catch {
    return null
  }
}

/** The import's record, and what it did. */
const finish = (w: Writer, roots: ReturnType<typeof checkGroups>["roots"]): StagedImport => {
  const { db, ids, imported, now, options, total, skipped, warnings } = w
  const top = roots[0]!.record
  const topId = ids.map("groups").get(top.id)!
  for (const g of roots) {
    db.prepare(`INSERT INTO imports (source, source_group_key, group_id, counts, created_at) VALUES ('loomio', ?, ?, ?, ?)`)
      .run(g.record.key, ids.map("groups").get(g.record.id), JSON.stringify(imported), now)
  }
  options.onProgress?.({ phase: "writing", done: total, total })
  const group = db.prepare(`SELECT id, key, name FROM groups WHERE id = ?`).get(topId) as { id: number; key: string; name: string }
  return {
    dry_run: options.dryRun === true,
    group,
    imported,
    skipped,
    users_matched: w.matched,
    references_dropped: w.dropped,
    warnings,
    attachments: w.attachments
  }
}

