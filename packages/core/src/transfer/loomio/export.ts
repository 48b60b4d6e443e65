/**
 * `convene export GROUP --to FILE` (decisions §7): the group, its subgroups, their people without secrets and
 * all their content, as Loomio's group export (JSON Lines of `{"table", "record"}`, the older generation of the
 * format, tables in Loomio's order), so that it imports into convene or Loomio. Every record is encoded by its
 * declaration in domain/loomio.ts, the one the import decodes with.
 *
 * Read in one read transaction (a consistent snapshot while the server writes), streamed row by row.
 */
import { createWriteStream, existsSync } from "node:fs"
import { once } from "node:events"
import { Schema } from "effect"
import { LOOMIO_TABLES, type LoomioTable } from "../../domain/loomio.js"
import { Outcome, Poll, Stance } from "../../domain/polls.js"
import { Group, Membership, User } from "../../domain/records.js"
import { type Db, migrate, openFile } from "../../sqlite/db.js"
import { bool, json } from "../../sql/rows.js"

export class ExportError extends Error {
  override readonly name = "ExportError"
}

export interface ExportResult {
  readonly group: { readonly id: number; readonly key: string; readonly name: string }
  readonly file: string
  /** records written, by table */
  readonly records: Record<string, number>
  /** with a files directory: the files written into it */
  readonly files?: { readonly written: number; readonly present: number; readonly missing: ReadonlyArray<string> }
}

/** The rows' export, and the files it names (SHA-256 → storage key) for the files' step (transfer/files.ts). */
export interface StagedExport extends ExportResult {
  readonly blobs: ReadonlyMap<string, string>
}

type Row = Record<string, unknown>

/** Everyone an export names: members, authors, voters, reactors, guests, and who invited, removed or closed. */
const PEOPLE: ReadonlyArray<readonly [table: string, column: string, scope: string]> = [
  ["groups", "creator_id", "id IN @groups_in"],
  ...["user_id", "inviter_id", "revoker_id"].map((c) => ["memberships", c, "group_id IN @groups_in"] as const),
  ["topics", "closer_id", "id IN @topics_in"],
  ...["author_id", "discarded_by"].map((c) => ["discussions", c, "topic_id IN @topics_in"] as const),
  ...["author_id", "discarded_by"].map((c) => ["comments", c, "discussion_id IN (SELECT id FROM discussions WHERE topic_id IN @topics_in)"] as const),
  ...["author_id", "discarded_by"].map((c) => ["polls", c, "id IN @polls_in"] as const),
  ...["participant_id", "inviter_id", "revoker_id"].map((c) => ["stances", c, "poll_id IN @polls_in"] as const),
  ["outcomes", "author_id", "poll_id IN @polls_in"],
  ["poll_templates", "author_id", "group_id IN @groups_in"],
  ["reactions", "user_id", "topic_id IN @topics_in"],
  ["topic_items", "actor_id", "topic_id IN @topics_in"],
  ...["user_id", "inviter_id"].map((c) => ["topic_readers", c, "topic_id IN @topics_in"] as const)
]

/** A row through its declaration: decoded (defaults filled, extra columns dropped, checked), then encoded as Loomio writes it. */
const encoders = Object.fromEntries(
  Object.entries(LOOMIO_TABLES).map(([t, s]) => {
    const schema = s as Schema.Schema<unknown, unknown>
    const decode = Schema.decodeUnknownSync(schema)
    const encode = Schema.encodeSync(schema)
    return [t, (row: unknown) => encode(decode(row))]
  })
) as Record<LoomioTable, (row: unknown) => unknown>

/** A row's flags (its record's, those the statement read) as booleans. */
const bools = (row: Row, keys: ReadonlyArray<string>): Row => {
  const out = { ...row }
  for (const k of keys) if (k in row) out[k] = bool(row[k])
  return out
}

/** The group by id, key or handle. */
const findGroup = (db: Db, ref: string) =>
  (/^[0-9]+$/.test(ref)
    ? db.prepare(`SELECT id, key, name FROM groups WHERE id = ?`).get(Number(ref))
    : db.prepare(`SELECT id, key, name FROM groups WHERE key = ? OR handle = ?`).get(ref, ref)) as
    | { id: number; key: string; name: string }
    | undefined

export const exportGroup = async (dbFile: string, ref: string, to: string): Promise<StagedExport> => {
  if (existsSync(to)) throw new ExportError(`${to} exists: choose a new file`)
  const db = openFile(dbFile, false)
  try {
    migrate(db)
    const group = findGroup(db, ref)
    if (group === undefined) throw new ExportError(`no group ${ref} (give its id, key or handle)`)
    db.exec("BEGIN")
    try {
      return { group, file: to, ...await writeExport(db, group.id, to) }
    } finally {
      db.exec("COMMIT")
    }
  } finally {
    db.close()
  }
}

const writeExport = async (db: Db, groupId: number, to: string) => {
  const out = createWriteStream(to, { flags: "wx" })
  const records: Record<string, number> = {}
  const blobs = new Map<string, string>()
  const put = async (table: LoomioTable, record: Row) => {
    records[table] = (records[table] ?? 0) + 1
    if (!out.write(JSON.stringify({ table, record: encoders[table](record) }) + "\n")) await once(out, "drain")
  }
  const each = async (table: LoomioTable, sql: string, shape: (row: Row) => Row) => {
    for (const row of db.prepare(sql).iterate({ groups: groupsJson }) as Iterable<Row>) await put(table, shape(row))
  }

  const groupIds = (db.prepare(`WITH RECURSIVE tree (id) AS (SELECT ? UNION ALL SELECT g.id FROM groups g JOIN tree ON g.parent_id = tree.id)
    SELECT id FROM tree`).pluck().all(groupId) as Array<number>)
  const groupsJson = JSON.stringify(groupIds)
  const inGroups = `(SELECT value FROM json_each(@groups))`
  const topics = `(SELECT id FROM topics WHERE group_id IN ${inGroups})`
  const polls = `(SELECT id FROM polls WHERE topic_id IN ${topics})`

  try {
    await each("groups", `SELECT * FROM groups WHERE id IN ${inGroups} ORDER BY parent_id IS NOT NULL, id`, (g) => ({
      ...bools(g, Group.flags),
      description_format: "md",
      hidden_poll_templates: json<Array<string>>(g.hidden_poll_templates),
      poll_template_positions: json<Record<string, number>>(g.poll_template_positions)
    }))
    await each("poll_templates", `SELECT * FROM poll_templates WHERE group_id IN ${inGroups} ORDER BY id`, (p) => ({
      ...json<Record<string, unknown>>(p.settings),
      id: p.id,
      group_id: p.group_id,
      author_id: p.author_id,
      poll_type: p.poll_type,
      process_name: p.process_name,
      process_subtitle: p.process_subtitle,
      details: p.details,
      details_format: "md",
      poll_options: json<Array<string>>(p.poll_options),
      default_duration_in_days: p.default_duration_in_days,
      source_key: p.source_key,
      position: p.position,
      discarded_at: p.discarded_at,
      created_at: p.created_at,
      updated_at: p.updated_at
    }))

    // everyone the export names: members, authors, voters, reactors, guests, and who invited or removed them
    const named = PEOPLE.map(([table, column, scope]) => `SELECT ${column} FROM ${table} WHERE ${scope}`).join("\n        UNION ")
      .replaceAll("@groups_in", inGroups).replaceAll("@topics_in", topics).replaceAll("@polls_in", polls)
    await each("users", `SELECT id, name, username, email, country, bot, deactivated_at, created_at, updated_at FROM users WHERE id IN (
        ${named}) ORDER BY id`, (u) => bools(u, User.flags))

    await each("events", `SELECT i.*, t.topicable_type, t.topicable_id FROM topic_items i JOIN topics t ON t.id = i.topic_id
        WHERE i.topic_id IN ${topics} ORDER BY i.topic_id, i.sequence_id`, (i) => ({
      id: i.id,
      kind: i.kind,
      eventable_type: i.itemable_type,
      eventable_id: i.itemable_id,
      user_id: i.actor_id,
      discussion_id: i.topicable_type === "Discussion" ? i.topicable_id : null,
      sequence_id: i.sequence_id,
      parent_id: i.parent_id,
      depth: i.depth,
      position: i.position,
      position_key: i.position_key,
      created_at: i.created_at
    }))

    await each("reactions", `SELECT id, reactable_type, reactable_id, user_id, reaction, created_at FROM reactions
        WHERE topic_id IN ${topics} ORDER BY id`, (r) => r)

    await each("memberships", `SELECT * FROM memberships WHERE group_id IN ${inGroups} ORDER BY id`, (m) => bools(m, Membership.flags))

    const threadOf = (t: Row) => ({
      group_id: t.group_id,
      private: bool(t.private),
      tags: json<Array<string>>(t.tags),
      max_depth: t.max_depth,
      last_activity_at: t.last_activity_at
    })
    await each("discussions", `SELECT d.*, t.group_id, t.private, t.tags, t.max_depth, t.last_activity_at, t.closed_at, t.closer_id
        FROM discussions d JOIN topics t ON t.id = d.topic_id WHERE d.topic_id IN ${topics} ORDER BY d.id`, (d) => ({
      id: d.id,
      key: d.key,
      author_id: d.author_id,
      title: d.title,
      description: d.description,
      description_format: d.description_format,
      discarded_at: d.discarded_at,
      discarded_by: d.discarded_by,
      created_at: d.created_at,
      updated_at: d.updated_at,
      ...threadOf(d),
      closed_at: d.closed_at,
      closer_id: d.closer_id
    }))

    await each("polls", `SELECT p.*, t.topicable_type, t.topicable_id, t.group_id, t.private, t.tags, t.max_depth, t.last_activity_at
        FROM polls p JOIN topics t ON t.id = p.topic_id WHERE p.id IN ${polls} ORDER BY p.id`, (p) => ({
      ...bools(p, Poll.flags),
      ...threadOf(p),
      // the older format places a poll by its discussion, or by its group when it stands alone
      topic_id: null,
      discussion_id: p.topicable_type === "Discussion" ? p.topicable_id : null
    }))

    await each("poll_options", `SELECT id, poll_id, name, priority FROM poll_options WHERE poll_id IN ${polls} ORDER BY id`, (o) => o)
    await each("outcomes", `SELECT * FROM outcomes WHERE poll_id IN ${polls} ORDER BY id`, (o) => bools(o, Outcome.flags))
    await each("stances", `SELECT * FROM stances WHERE poll_id IN ${polls} ORDER BY id`, (s) => bools(s, Stance.flags))
    await each("stance_choices", `SELECT c.stance_id, c.poll_option_id, c.score FROM stance_choices c JOIN stances s ON s.id = c.stance_id
        WHERE s.poll_id IN ${polls} ORDER BY c.stance_id, c.poll_option_id`, (c) => ({ id: null, ...c }))

    await each("discussion_readers", `SELECT r.*, t.topicable_type, t.topicable_id FROM topic_readers r JOIN topics t ON t.id = r.topic_id
        WHERE r.topic_id IN ${topics} ORDER BY r.id`, (r) => ({
      id: r.id,
      discussion_id: r.topicable_type === "Discussion" ? r.topicable_id : null,
      poll_id: r.topicable_type === "Poll" ? r.topicable_id : null,
      user_id: r.user_id,
      inviter_id: r.inviter_id,
      guest: bool(r.guest),
      revoked_at: r.revoked_at,
      created_at: r.created_at,
      last_read_at: r.last_read_at,
      read_ranges_string: r.read_ranges,
      dismissed_at: r.dismissed_at
    }))

    await each("comments", `SELECT * FROM comments WHERE discussion_id IN (SELECT id FROM discussions WHERE topic_id IN ${topics})
        ORDER BY id`, (c) => ({
      id: c.id,
      discussion_id: c.discussion_id,
      // Loomio's polymorphic parent: the comment replied to, or the discussion itself
      parent_id: c.parent_id ?? c.discussion_id,
      parent_type: c.parent_id === null ? "Discussion" : "Comment",
      user_id: c.author_id,
      body: c.body,
      body_format: c.body_format,
      edited_at: c.edited_at,
      discarded_at: c.discarded_at,
      discarded_by: c.discarded_by,
      created_at: c.created_at,
      updated_at: c.updated_at
    }))

    // the files of its threads' records, each line naming its bytes by their hash (their name in the files directory)
    const owners = [
      ["Discussion", `SELECT id FROM discussions WHERE topic_id IN ${topics}`],
      ["Comment", `SELECT id FROM comments WHERE discussion_id IN (SELECT id FROM discussions WHERE topic_id IN ${topics})`],
      ["Poll", `SELECT id FROM polls WHERE id IN ${polls}`],
      ["Outcome", `SELECT id FROM outcomes WHERE poll_id IN ${polls}`]
    ].map(([type, ids]) => `(a.record_type = '${type}' AND a.record_id IN (${ids}))`).join(" OR ")
    await each("attachments", `SELECT a.id, a.record_type, a.record_id, a.filename, a.signed_id, b.content_type, b.sha256, b.storage_key
        FROM attachments a JOIN blobs b ON b.id = a.blob_id WHERE ${owners} ORDER BY a.record_type, a.record_id, a.position`, (a) => {
      blobs.set(a.sha256 as string, a.storage_key as string)
      return {
        id: a.id,
        record_type: a.record_type,
        record_id: a.record_id,
        name: "files",
        filename: a.filename,
        content_type: a.content_type,
        path: `/files/${a.signed_id as string}/${encodeURIComponent(a.filename as string)}`,
        key: a.sha256
      }
    })
  } finally {
    out.end()
    await once(out, "close")
  }
  return { records, blobs }
}
