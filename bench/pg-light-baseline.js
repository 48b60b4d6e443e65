/**
 * Child process: bench/light-baseline.js's discussion read over PostgreSQL, for bench/postgres.js. node:http +
 * node-postgres (a pool of 10, prepared statements) running the same queries one after another (bearer key →
 * SHA-256 → user, the discussion, its thread, the group with its counters, the caller's membership for a
 * private thread, the author) and answering the same document's fields. What it measures: this machine's
 * round trips to PostgreSQL with no store, services or serializer around them.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import * as http from "node:http"
import pg from "pg"
// rows read as convene reads them (numbers, flags as 0/1, instants as ISO text): the same parsing work
import { pgRowTypes } from "@convene/core"

const url = process.argv[2]
if (url === undefined) throw new Error("usage: pg-light-baseline.js <postgres:// URL>")
const pool = new pg.Pool({ connectionString: url, max: 10, types: pgRowTypes })
const one = async (name, text, values) => (await pool.query({ name, text, values })).rows[0]

const json = (res, status, body) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const caller = async (req) => {
  const header = req.headers.authorization ?? ""
  const key = header.startsWith("Bearer ") ? header.slice(7).trim() : ""
  if (key === "") return undefined
  const hash = createHash("sha256").update(key, "utf8").digest("hex")
  const user = await one("user", `SELECT id, email, deactivated_at, api_key_hash FROM users WHERE api_key_hash = $1`, [hash])
  return user !== undefined && timingSafeEqual(Buffer.from(user.api_key_hash), Buffer.from(hash)) && user.deactivated_at === null ? user : undefined
}

const discussion = async (user, id) => {
  const d = await one("discussion", `SELECT * FROM discussions WHERE id = $1`, [id])
  if (d === undefined || d.discarded_at !== null) return [404, { error: "Not found" }]
  const t = await one("topic", `SELECT * FROM topics WHERE id = $1`, [d.topic_id])
  if (t.private === 1 && (await one("member", `SELECT 1 AS one FROM memberships WHERE user_id = $1 AND group_id = $2 AND revoked_at IS NULL`, [user.id, t.group_id])) === undefined) {
    return [404, { error: "Not found" }]
  }
  const group = await one("group", `SELECT * FROM groups WHERE id = $1`, [t.group_id])
  const author = await one("person", `SELECT id, name, username, country, bot, deactivated_at, email FROM users WHERE id = $1`, [d.author_id])
  return [200, {
    discussions: [{ ...d, group_id: t.group_id, private: t.private === 1, closed_at: t.closed_at, last_activity_at: t.last_activity_at }],
    topics: [{ ...t, private: t.private === 1, tags: JSON.parse(t.tags), replies_count: Math.max(t.items_count - 1, 0) }],
    groups: [group],
    users: [{ id: author.id, name: author.name ?? author.username ?? "Anonymous", username: author.username, country: author.country, bot: author.bot === 1 }],
    meta: { root: "discussions" }
  }]
}

const server = http.createServer((req, res) => {
  const m = /^\/api\/b2\/discussions\/(\d+)$/.exec(req.url ?? "")
  if (m === null) return json(res, 404, { error: "Not found" })
  caller(req)
    .then((user) => (user === undefined ? [403, { error: "Invalid API key" }] : discussion(user, Number(m[1]))))
    .then(([status, body]) => json(res, status, body), (e) => json(res, 500, { error: String(e) }))
})
server.listen(0, "127.0.0.1", () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
process.on("message", (m) => m === "stop" && server.close(() => pool.end().then(() => process.exit(0))))
process.on("disconnect", () => process.exit(0))
