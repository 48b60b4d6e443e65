/**
 * Child process: the bare baseline for bench/light.js. node:http + better-sqlite3 answering, with the same
 * JSON as convene (light.js asserts it), `GET /api/b2/discussions/{id}` (bearer key → SHA-256 → user, the
 * discussion, its thread, the group with its counters, the caller's membership for a private thread, the
 * author), `GET /api/b2/groups` (the caller's groups with their counters, parents not listed, the caller's
 * memberships) and `GET /healthz` (`SELECT 1`). Prepared statements are the only thing kept between requests.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import * as http from "node:http"
import { GROUP, mentions, openDatabase, readerFields, readerStatements } from "./baseline-sql.js"

const db = openDatabase("light-baseline.js")
const r = readerStatements(db)
const sql = {
  user: db.prepare(`SELECT id, email, deactivated_at, api_key_hash FROM users WHERE api_key_hash = ?`),
  groups: db.prepare(`SELECT ${GROUP} AS json FROM memberships m JOIN groups g ON g.id = m.group_id LEFT JOIN groups p ON p.id = g.parent_id
    WHERE m.user_id = ? AND m.revoked_at IS NULL ORDER BY g.id`).pluck(),
  parent: db.prepare(`SELECT ${GROUP} AS json FROM groups g LEFT JOIN groups p ON p.id = g.parent_id WHERE g.id = ?`).pluck(),
  memberships: db.prepare(`SELECT id, group_id, user_id, inviter_id, admin, delegate, title, accepted_at, created_at FROM memberships
    WHERE user_id = ? AND revoked_at IS NULL ORDER BY group_id`),
  discussion: db.prepare(`SELECT * FROM discussions WHERE id = ?`),
  topic: db.prepare(`SELECT * FROM topics WHERE id = ?`),
  group: db.prepare(`SELECT ${GROUP} AS json FROM groups g LEFT JOIN groups p ON p.id = g.parent_id WHERE g.id = ?`).pluck(),
  member: db.prepare(`SELECT 1 FROM memberships WHERE user_id = ? AND group_id = ? AND revoked_at IS NULL`).pluck(),
  person: db.prepare(`SELECT id, name, username, country, bot, deactivated_at, email FROM users WHERE id = ?`),
  ping: db.prepare(`SELECT 1`).pluck()
}

const json = (res, status, body) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const caller = (req) => {
  const header = req.headers.authorization ?? ""
  const key = header.startsWith("Bearer ") ? header.slice(7).trim() : ""
  if (key === "") return undefined
  const hash = createHash("sha256").update(key, "utf8").digest("hex")
  const user = sql.user.get(hash)
  return user !== undefined && timingSafeEqual(Buffer.from(user.api_key_hash), Buffer.from(hash)) && user.deactivated_at === null ? user : undefined
}


const discussion = (user, id) => {
  const d = sql.discussion.get(id)
  if (d === undefined || d.discarded_at !== null) return [404, { error: "Not found" }]
  const t = sql.topic.get(d.topic_id)
  if (t.private === 1 && sql.member.get(user.id, t.group_id) === undefined) return [404, { error: "Not found" }]
  const author = sql.person.get(d.author_id)
  const topic = {
    id: t.id, group_id: t.group_id, topicable_type: t.topicable_type, topicable_id: t.topicable_id, private: t.private === 1,
    tags: JSON.parse(t.tags), items_count: t.items_count, seen_by_count: t.seen_by_count, replies_count: Math.max(t.items_count - 1, 0), max_depth: t.max_depth,
    last_activity_at: t.last_activity_at, closed_at: t.closed_at, locked_at: t.closed_at, closer_id: t.closer_id, pinned_at: null,
    created_at: t.created_at, updated_at: t.updated_at
  }
  return [200, {
    discussions: [{
      id: d.id, key: d.key, topic_id: d.topic_id, group_id: t.group_id, title: d.title, description: d.description,
      description_format: d.description_format, mentioned_usernames: d.description_format === "md" ? mentions(d.description) : [], private: t.private === 1, closed_at: t.closed_at, last_activity_at: t.last_activity_at,
      author_id: d.author_id, discarded_at: d.discarded_at, discarded_by: d.discarded_by, created_at: d.created_at, updated_at: d.updated_at,
      // the caller's reader fields: their place in the thread and their own volume there
      ...readerFields(r.reader.get(t.id, user.id), r.volume.get(user.id, t.id), t)
    }],
    topics: [topic],
    groups: [JSON.parse(sql.group.get(t.group_id))],
    users: [{
      id: author.id, name: author.name ?? author.username ?? "Anonymous", username: author.username, country: author.country,
      bot: author.bot === 1, deactivated_at: author.deactivated_at, ...(author.id === user.id ? { email: author.email } : {})
    }],
    meta: { root: "discussions" }
  }]
}

/** The caller's groups, the parents of those not listed themselves, and the caller's memberships. */
const groups = (user) => {
  const listed = sql.groups.all(user.id).map((json) => JSON.parse(json))
  const ids = new Set(listed.map((g) => g.id))
  const parentIds = [...new Set(listed.flatMap((g) => (g.parent_id === null || ids.has(g.parent_id) ? [] : [g.parent_id])))]
  return {
    groups: listed,
    parent_groups: parentIds.map((id) => JSON.parse(sql.parent.get(id))),
    memberships: sql.memberships.all(user.id).map((m) => ({ ...m, admin: m.admin === 1, delegate: m.delegate === 1, user_email: user.email })),
    meta: { root: "groups" }
  }
}

const server = http.createServer((req, res) => {
  if (req.url === "/healthz") return json(res, 200, { ok: sql.ping.get() === 1 })
  const m = /^\/api\/b2\/discussions\/(\d+)$/.exec(req.url ?? "")
  if (m === null && req.url !== "/api/b2/groups") return json(res, 404, { error: "Not found" })
  const user = caller(req)
  if (user === undefined) return json(res, 403, { error: "Invalid API key" })
  if (m === null) return json(res, 200, groups(user))
  const [status, body] = discussion(user, Number(m[1]))
  json(res, status, body)
})
server.listen(0, "127.0.0.1", () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
process.on("message", (m) => m === "stop" && server.close(() => process.exit(0)))
process.on("disconnect", () => process.exit(0))
