/**
 * What the bare baselines share: opening the seeded file, and the SQL that builds a group's JSON exactly as
 * convene serializes it, with the counters the database keeps on the group row (migrations 010 and 016), as
 * convene reads them.
 */
import Database from "better-sqlite3"

/** The database file named on the command line; `writable` for a baseline that votes. */
export const openDatabase = (script, { writable = false } = {}) => {
  const filename = process.argv[2]
  if (filename === undefined) throw new Error(`usage: ${script} <database file>`)
  const db = new Database(filename, { fileMustExist: true })
  db.pragma("busy_timeout = 5000")
  if (writable) {
    db.pragma("journal_mode = WAL")
    db.pragma("synchronous = FULL")
    db.pragma("foreign_keys = ON")
  } else {
    db.pragma("query_only = ON")
  }
  // a record's mentioned_usernames in SQL: mentions(text, format) as JSON text
  db.function("mentions", { deterministic: true }, (text, format) => JSON.stringify(format === "md" && text !== null ? mentions(text) : []))
  // a reader's read ranges as JSON pairs (convene's rules/readState.ts)
  db.function("ranges", { deterministic: true }, (text) => JSON.stringify(parseRanges(text)))
  return db
}

// the usernames a markdown text @mentions (convene's rule, rules/mentions.ts: the same work)
const MENTION = /(^|[^A-Za-z0-9_.@/-])@([A-Za-z0-9][A-Za-z0-9._-]{0,63})/g
export const mentions = (text) => {
  const names = new Set()
  for (const m of text.matchAll(MENTION)) {
    names.add(m[2].replace(/[.-]+$/, "").toLowerCase())
    if (names.size >= 50) break
  }
  return [...names].filter((n) => n !== "")
}

/** A 0/1 column as a JSON boolean. */
export const bool = (col) => `json(CASE WHEN ${col} THEN 'true' ELSE 'false' END)`

/** A group `g` (with its parent `p`, possibly null) as convene's group JSON. */
export const GROUP = `json_object('id', g.id, 'key', g.key, 'handle', g.handle, 'name', g.name,
  'full_name', CASE WHEN p.id IS NULL THEN g.name ELSE p.name || ' - ' || g.name END, 'parent_id', g.parent_id,
  'description', g.description, 'enabled', ${bool("g.enabled")}, 'is_visible_to_public', ${bool("g.is_visible_to_public")},
  'is_visible_to_parent_members', ${bool("g.is_visible_to_parent_members")}, 'discussion_privacy_options', g.discussion_privacy_options,
  'parent_members_can_see_discussions', ${bool("g.parent_members_can_see_discussions")},
  'members_can_start_discussions', ${bool("g.members_can_start_discussions")}, 'members_can_edit_discussions', ${bool("g.members_can_edit_discussions")},
  'members_can_edit_comments', ${bool("g.members_can_edit_comments")}, 'members_can_raise_motions', ${bool("g.members_can_raise_motions")},
  'members_can_vote', ${bool("g.members_can_vote")}, 'members_can_add_members', ${bool("g.members_can_add_members")},
  'members_can_create_subgroups', ${bool("g.members_can_create_subgroups")}, 'members_can_add_guests', ${bool("g.members_can_add_guests")},
  'members_can_announce', ${bool("g.members_can_announce")}, 'members_can_delete_comments', ${bool("g.members_can_delete_comments")},
  'membership_granted_upon', g.membership_granted_upon,
  'admins_can_edit_user_content', ${bool("g.admins_can_edit_user_content")},
  'members_can_delegate', ${bool("g.members_can_delegate")}, 'delegation_limit', g.delegation_limit,
  'memberships_count', g.memberships_count, 'accepted_memberships_count', g.accepted_memberships_count,
  'pending_memberships_count', g.pending_memberships_count, 'admin_memberships_count', g.admin_memberships_count,
  'delegates_count', g.delegates_count, 'discussions_count', g.discussions_count, 'polls_count', g.polls_count,
  'subgroups_count', g.subgroups_count, 'created_at', g.created_at)`

/** Loomio's read ranges ("1-5,7-9") as [first, last] pairs, joined where they touch (convene's rules/readState.ts: the same work). */
export const parseRanges = (text) => {
  const pairs = (text ?? "").split(",").filter((p) => p !== "").map((p) => {
    const [a, b] = p.split("-").map(Number)
    return [a, b ?? a]
  }).sort((x, y) => x[0] - y[0])
  const out = []
  for (const [a, b] of pairs) {
    const last = out.at(-1)
    if (last !== undefined && a <= last[1] + 1) last[1] = Math.max(last[1], b)
    else out.push([a, b])
  }
  return out
}
export const formatRanges = (pairs) => pairs.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(",")

/** The statements a baseline needs for the caller's reader: read it (with their volume), and write what they read. */
export const readerStatements = (db) => ({
  reader: db.prepare(`SELECT * FROM topic_readers WHERE topic_id = ? AND user_id = ?`),
  volume: db.prepare(`SELECT volume FROM thread_volumes WHERE user_id = ? AND topic_id = ?`).pluck(),
  markRead: db.prepare(`INSERT INTO topic_readers (topic_id, user_id, guest, created_at, last_read_at, read_ranges) VALUES (@topic, @user, FALSE, @at, @at, @ranges)
                        ON CONFLICT (topic_id, user_id) DO UPDATE SET read_ranges = excluded.read_ranges, last_read_at = excluded.last_read_at
                        WHERE coalesce(topic_readers.read_ranges, '') = @previous`),
  live: db.prepare(`INSERT INTO live_events (kind, group_id, topic_id, user_id, created_at) VALUES ('thread', ?, ?, NULL, ?)`)
})

/** The reader fields of a discussion record, from the caller's reader row and volume (as convene's serializer). */
export const readerFields = (reader, volume, topic) => ({
  last_read_at: reader?.last_read_at ?? null,
  read_ranges: parseRanges(reader?.read_ranges),
  discussion_reader_volume: volume ?? null,
  dismissed_at: reader?.dismissed_at ?? null,
  seen_by_count: topic.seen_by_count
})
