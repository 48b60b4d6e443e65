/**
 * Child process: the baseline. A bare `node:http` server over better-sqlite3 with hand-written prepared SQL
 * that answers the two benchmarked endpoints with the same JSON as convene (run.js asserts it) and does the
 * same per-request work: bearer key → SHA-256 → user lookup, permission check, queries, serialization.
 * Nothing is cached between requests except the prepared statements.
 *
 * Where it differs from convene it is in how few queries it needs, which is the point of a baseline:
 * the caller's groups, memberships, parents' names and counters come from one statement (convene: the
 * caller's memberships, their groups, then the counters), and the memberships list checks only the caller's
 * membership in the group and its parent (convene loads all of the caller's memberships). Parent groups are
 * queried again even when they are in the list, as convene does.
 *
 * It is deliberately not a general implementation: only `GET /api/b2/groups` and
 * `GET /api/b2/memberships?group_id=&limit=&offset=` (no `compact`/`exclude_types`).
 */
import Database from "better-sqlite3"
import { createHash, timingSafeEqual } from "node:crypto"
import * as http from "node:http"

const filename = process.argv[2]
if (filename === undefined) throw new Error("usage: baseline-server.ts <database file>")

// Same pragmas as convene's read connection; query_only because the baseline never writes.
const db = new Database(filename, { fileMustExist: true })
db.pragma("busy_timeout = 5000")
db.pragma("foreign_keys = ON")
db.pragma("query_only = ON")

/** A group row plus its parent's name (for full_name) and its exact counters; `c` and `dc` are joined by COUNTS_FOR. */
const GROUP_COLUMNS = `g.*, p.name AS parent_name,
  coalesce(c.memberships_count, 0) AS memberships_count,
  coalesce(c.accepted_memberships_count, 0) AS accepted_memberships_count,
  coalesce(c.pending_memberships_count, 0) AS pending_memberships_count,
  coalesce(c.admin_memberships_count, 0) AS admin_memberships_count,
  coalesce(c.delegates_count, 0) AS delegates_count,
  coalesce(dc.n, 0) AS discussions_count,
  (SELECT count(*) FROM groups s WHERE s.parent_id = g.id) AS subgroups_count`

/**
 * Parent and counters of `g` (live memberships; discussions not deleted). The counters are aggregated once over the live memberships of the selected
 * groups (the same aggregate as convene's), then joined: grouping the joined rows instead made SQLite sort
 * every membership row with all the group's columns, 3-4 times slower.
 */
const COUNTS_FOR = (groupIdsSql) => `
  LEFT JOIN groups p ON p.id = g.parent_id
  LEFT JOIN (
    SELECT group_id,
      count(*) AS memberships_count,
      count(accepted_at) AS accepted_memberships_count,
      sum(accepted_at IS NULL) AS pending_memberships_count,
      sum(admin) AS admin_memberships_count,
      sum(delegate) AS delegates_count
    FROM memberships WHERE revoked_at IS NULL AND group_id IN (${groupIdsSql}) GROUP BY group_id
  ) c ON c.group_id = g.id
  LEFT JOIN (
    SELECT t.group_id, count(*) AS n FROM discussions d JOIN topics t ON t.id = d.topic_id
    WHERE d.discarded_at IS NULL AND t.group_id IN (${groupIdsSql}) GROUP BY t.group_id
  ) dc ON dc.group_id = g.id`

const sql = {
  userByKeyHash: db.prepare(
    `SELECT id, name, username, email, country, bot, deactivated_at, api_key_hash FROM users WHERE api_key_hash = ?`
  ),
  /** The caller's groups with parents' names and counters, and the caller's membership in each. */
  groupsOfUser: db.prepare(`
    SELECT ${GROUP_COLUMNS},
      me.id AS m_id, me.inviter_id AS m_inviter_id, me.admin AS m_admin, me.delegate AS m_delegate,
      me.title AS m_title, me.accepted_at AS m_accepted_at, me.created_at AS m_created_at
    FROM memberships me
    JOIN groups g ON g.id = me.group_id
    ${COUNTS_FOR("SELECT group_id FROM memberships WHERE user_id = @user AND revoked_at IS NULL")}
    WHERE me.user_id = @user AND me.revoked_at IS NULL
    ORDER BY g.id`),
  /** Groups by a JSON array of ids, in the array's order, with parents' names and counters. */
  groupsByIds: db.prepare(`
    SELECT ${GROUP_COLUMNS}
    FROM json_each(@ids) j
    JOIN groups g ON g.id = j.value
    ${COUNTS_FOR("SELECT value FROM json_each(@ids)")}
    ORDER BY j.key`),
  /** The caller's live memberships in a group and in its parent (for the list and e-mail permissions). */
  callerIn: db.prepare(
    `SELECT group_id, admin FROM memberships WHERE user_id = ? AND revoked_at IS NULL AND group_id IN (?, ?)`
  ),
  groupExists: db.prepare(`SELECT id, parent_id FROM groups WHERE id = ?`),
  membershipsPage: db.prepare(`
    SELECT id, group_id, user_id, inviter_id, admin, delegate, title, accepted_at, created_at
    FROM memberships WHERE group_id = ? AND revoked_at IS NULL ORDER BY id LIMIT ? OFFSET ?`),
  membershipsTotal: db.prepare(`SELECT count(*) AS n FROM memberships WHERE group_id = ? AND revoked_at IS NULL`).pluck(),
  usersByIds: db.prepare(`
    SELECT u.id, u.name, u.username, u.email, u.country, u.bot, u.deactivated_at
    FROM json_each(?) j JOIN users u ON u.id = j.value ORDER BY u.id`)
}

// ---- serialization (field order as convene's serializers, so the bodies are byte-identical) ----

const b = (v) => v === 1

const groupJson = (g) => ({
  id: g.id,
  key: g.key,
  handle: g.handle,
  name: g.name,
  full_name: g.parent_name == null ? g.name : `${g.parent_name} - ${g.name}`,
  parent_id: g.parent_id,
  description: g.description,
  enabled: b(g.enabled),
  is_visible_to_public: b(g.is_visible_to_public),
  is_visible_to_parent_members: b(g.is_visible_to_parent_members),
  discussion_privacy_options: g.discussion_privacy_options,
  parent_members_can_see_discussions: b(g.parent_members_can_see_discussions),
  members_can_start_discussions: b(g.members_can_start_discussions),
  members_can_edit_discussions: b(g.members_can_edit_discussions),
  members_can_edit_comments: b(g.members_can_edit_comments),
  members_can_raise_motions: b(g.members_can_raise_motions),
  members_can_vote: b(g.members_can_vote),
  members_can_add_members: b(g.members_can_add_members),
  members_can_create_subgroups: b(g.members_can_create_subgroups),
  members_can_add_guests: b(g.members_can_add_guests),
  members_can_announce: b(g.members_can_announce),
  members_can_delete_comments: b(g.members_can_delete_comments),
  membership_granted_upon: g.membership_granted_upon,
  admins_can_edit_user_content: b(g.admins_can_edit_user_content),
  members_can_delegate: b(g.members_can_delegate),
  delegation_limit: g.delegation_limit,
  memberships_count: g.memberships_count,
  accepted_memberships_count: g.accepted_memberships_count,
  pending_memberships_count: g.pending_memberships_count,
  admin_memberships_count: g.admin_memberships_count,
  delegates_count: g.delegates_count,
  discussions_count: g.discussions_count,
  // no polls table yet: convene reports 0 as well
  polls_count: 0,
  subgroups_count: g.subgroups_count,
  created_at: g.created_at
})

const membershipJson = (m, email, showEmail) => ({
  id: m.id,
  group_id: m.group_id,
  user_id: m.user_id,
  inviter_id: m.inviter_id,
  admin: b(m.admin),
  delegate: b(m.delegate),
  title: m.title,
  accepted_at: m.accepted_at,
  created_at: m.created_at,
  ...(email != null && showEmail ? { user_email: email } : {})
})

const userJson = (u, callerId) => ({
  id: u.id,
  name: u.name ?? u.username ?? "Anonymous",
  username: u.username,
  country: u.country,
  bot: b(u.bot),
  deactivated_at: u.deactivated_at,
  ...(u.id === callerId ? { email: u.email } : {})
})

// ---- handlers ----

class HttpError {
  constructor(status, message) {
    this.status = status
    this.message = message
  }
}

/** Bearer key → user, refusing unknown keys and deactivated users alike (as convene). */
const authenticate = (req) => {
  const header = req.headers.authorization ?? ""
  const key = header.startsWith("Bearer ") ? header.slice(7).trim() : ""
  if (key === "") throw new HttpError(403, "An API key is required: send Authorization: Bearer <key>")
  const hash = createHash("sha256").update(key, "utf8").digest("hex")
  const user = sql.userByKeyHash.get(hash)
  if (user === undefined || !timingSafeEqual(Buffer.from(user.api_key_hash), Buffer.from(hash)) || user.deactivated_at !== null) {
    throw new HttpError(403, "Invalid API key")
  }
  return user
}

const listGroups = (user) => {
  const rows = sql.groupsOfUser.all({ user: user.id })
  // parents in order of first mention, as convene's envelope dedupes them
  const parentIds = [...new Set(rows.flatMap((r) => (r.parent_id === null ? [] : [r.parent_id])))]
  const parents = parentIds.length === 0 ? [] : sql.groupsByIds.all({ ids: JSON.stringify(parentIds) })
  return {
    groups: rows.map(groupJson),
    parent_groups: parents.map(groupJson),
    memberships: rows.map((r) =>
      membershipJson(
        {
          id: r.m_id,
          group_id: r.id,
          user_id: user.id,
          inviter_id: r.m_inviter_id,
          admin: r.m_admin,
          delegate: r.m_delegate,
          title: r.m_title,
          accepted_at: r.m_accepted_at,
          created_at: r.m_created_at
        },
        user.email,
        true // the caller's own membership
      )
    ),
    meta: { root: "groups" }
  }
}

const intParam = (q, name, min, max = Number.MAX_SAFE_INTEGER) => {
  const all = q.getAll(name)
  const v = all[all.length - 1]
  if (v === undefined || v === "") return undefined
  if (!/^-?[0-9]{1,15}$/.test(v)) throw new HttpError(400, `${name} must be an integer`)
  const n = Number(v)
  if (n < min) throw new HttpError(400, `${name} must be at least ${min}`)
  if (n > max) throw new HttpError(400, `${name} must be at most ${max}`)
  return n
}

const listMemberships = (user, q) => {
  const groupId = intParam(q, "group_id", -Infinity)
  if (groupId === undefined) throw new HttpError(400, "Missing required parameter: group_id")
  const limit = intParam(q, "limit", 1, 200) ?? 50
  const offset = intParam(q, "offset", 0) ?? 0
  const group = sql.groupExists.get(groupId)
  if (group === undefined) throw new HttpError(404, `Group ${groupId} not found`)
  const mine = sql.callerIn.all(user.id, group.id, group.parent_id)
  const member = mine.some((m) => m.group_id === group.id)
  const admin = mine.some((m) => m.group_id === group.id && m.admin === 1)
  const parentAdmin = mine.some((m) => m.group_id === group.parent_id && m.admin === 1)
  // members and parent-group admins read the list; anyone else gets an empty one (as Loomio)
  if (!member && !parentAdmin) return { memberships: [], users: [], groups: [], meta: { root: "memberships", total: 0 } }
  const records = sql.membershipsPage.all(group.id, limit, offset)
  const total = sql.membershipsTotal.get(group.id)
  const userIds = [...new Set(records.flatMap((m) => (m.inviter_id === null ? [m.user_id] : [m.user_id, m.inviter_id])))]
  const users = sql.usersByIds.all(JSON.stringify(userIds))
  const emails = new Map(users.map((u) => [u.id, u.email]))
  const groups = records.length > 0 ? sql.groupsByIds.all({ ids: JSON.stringify([group.id]) }) : []
  return {
    memberships: records.map((m) => membershipJson(m, emails.get(m.user_id), m.user_id === user.id || admin)),
    users: users.map((u) => userJson(u, user.id)),
    groups: groups.map(groupJson),
    meta: { root: "memberships", total }
  }
}

const send = (res, status, body) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const server = http.createServer((req, res) => {
  try {
    const url = new URL(req.url ?? "/", "http://x")
    if (req.method === "GET" && url.pathname === "/api/b2/groups") return send(res, 200, listGroups(authenticate(req)))
    if (req.method === "GET" && url.pathname === "/api/b2/memberships") {
      return send(res, 200, listMemberships(authenticate(req), url.searchParams))
    }
    send(res, 404, { error: "Not found" })
  } catch (e) {
    if (e instanceof HttpError) return send(res, e.status, { error: e.message })
    console.error(e)
    send(res, 500, { error: "Internal error" })
  }
})

server.listen(0, "127.0.0.1", () => {
  process.send({ url: `http://127.0.0.1:${server.address().port}` })
})

// Same protocol as convene-server.js: "stop" message or parent gone.
const stop = () => {
  server.close(() => (db.close(), process.exit(0)))
  server.closeAllConnections()
}
process.on("message", (m) => m === "stop" && stop())
process.on("disconnect", stop)
