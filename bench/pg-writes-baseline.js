/**
 * Child process: bench/writes-baseline.js's comment write over PostgreSQL, for bench/postgres.js. node:http +
 * node-postgres (a pool of 10, prepared statements), `POST /api/b2/comments` doing the statements convene's
 * `Comments.createComment` does, in one READ COMMITTED transaction per request committed before the answer:
 * bearer key → SHA-256 → user; the discussion; its thread, read locked as convene locks it (FOR NO KEY UPDATE) so
 * writers to one thread take their sequence numbers in turn; the caller's membership; the comment (the schema's
 * triggers index it for search, as in convene); the thread's items_count and activity; its thread item (next
 * sequence_id, under the thread's first item, child_count bumped); the webhook outbox row and one delivery per
 * subscribed chatbot, each combined as convene combines them (the thread's update answers the thread). What it measures: the same writes with no store, services or
 * serializer around them.
 */
import { createHash } from "node:crypto"
import * as http from "node:http"
import pg from "pg"
// rows read as convene reads them (numbers, flags as 0/1, instants as ISO text): the same parsing work
import { pgRowTypes } from "@convene/core"

const url = process.argv[2]
if (url === undefined) throw new Error("usage: pg-writes-baseline.js <postgres:// URL>")
const pool = new pg.Pool({ connectionString: url, max: 10, types: pgRowTypes })

const json = (res, status, body) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const comment = async (user, discussionId, body) => {
  const one = async (client, name, text, values) => (await client.query({ name, text, values })).rows[0]
  const d = await one(pool, "discussion", `SELECT * FROM discussions WHERE id = $1`, [discussionId])
  if (d === undefined || d.discarded_at !== null) return [404, { error: `Discussion ${discussionId} not found` }]
  const now = new Date().toISOString()
  const client = await pool.connect()
  let released = false
  try {
    await client.query("BEGIN ISOLATION LEVEL READ COMMITTED")
    // the statements as convene writes them: the thread read by its lock; the thread's counter and activity in one
    // update; its first item counted and found by one update; the next sequence id found by the item's insert; the
    // event answering how many chatbots take it, their deliveries made by one statement when there are any
    const t = await one(client, "lock", `SELECT * FROM topics WHERE id = $1 FOR NO KEY UPDATE`, [d.topic_id])
    const member = await one(client, "member", `SELECT 1 AS one FROM memberships WHERE group_id = $1 AND user_id = $2 AND revoked_at IS NULL`, [t.group_id, user.id])
    if (member === undefined || t.closed_at !== null) {
      await client.query("ROLLBACK")
      return [403, { error: "Not authorized to create Comment." }]
    }
    const { id } = await one(client, "comment", `INSERT INTO comments (discussion_id, parent_id, author_id, body, body_format, created_at, updated_at)
      VALUES ($1, NULL, $2, $3, 'md', $4, $4) RETURNING id`, [d.id, user.id, body, now])
    // the thread as this write leaves it, for the answer
    const topic = await one(client, "count", `UPDATE topics SET items_count = items_count + 1, last_activity_at = $1, updated_at = $1 WHERE id = $2 RETURNING *`, [now, t.id])
    const root = await one(client, "children", `UPDATE topic_items SET child_count = child_count + 1 WHERE topic_id = $1 AND sequence_id = 0
      RETURNING id, depth, position_key, child_count`, [t.id])
    const key = String(root.child_count).padStart(5, "0")
    await client.query({
      name: "item",
      text: `INSERT INTO topic_items (topic_id, kind, sequence_id, parent_id, depth, position, position_key, itemable_type, itemable_id, actor_id, created_at)
             VALUES ($1, 'new_comment', (SELECT coalesce(max(sequence_id), 0) + 1 FROM topic_items WHERE topic_id = $1), $2, $3, $4, $5, 'Comment', $6, $7, $8)`,
      values: [t.id, root.id, root.depth + 1, root.child_count, root.position_key === null ? key : `${root.position_key}-${key}`, id, user.id, now]
    })
    const message = JSON.stringify({ headline: `${user.name ?? "Anonymous"} commented`, title: d.title, path: `/d/${d.key}/comment/${id}`, body, recipient_message: null })
    const event = await one(client, "event", `INSERT INTO webhook_events (kind, group_id, actor_id, eventable_type, eventable_id, message, created_at)
      VALUES ('new_comment', $1, $2, 'Comment', $3, $4, $5)
      RETURNING id, (SELECT count(*) FROM chatbots WHERE group_id = $1 AND event_kinds @> '["new_comment"]'::jsonb) AS bots`, [t.group_id, user.id, id, message, now])
    if (event.bots > 0) {
      await client.query({ name: "deliveries", text: `INSERT INTO webhook_deliveries (event_id, chatbot_id, next_attempt_at, created_at)
        SELECT $1, id, $2, $2 FROM chatbots WHERE group_id = $3 AND event_kinds @> '["new_comment"]'::jsonb ORDER BY id`, values: [event.id, now, t.group_id] })
    }
    await client.query("COMMIT")
    released = true
    client.release()
    return [200, {
      comments: [{ id, discussion_id: d.id, topic_id: t.id, parent_id: null, author_id: user.id, body, body_format: "md", edited_at: null,
        discarded_at: null, discarded_by: null, created_at: now, updated_at: now }],
      discussions: [{ id: d.id, key: d.key, title: d.title, topic_id: t.id, group_id: t.group_id }],
      topics: [{ id: topic.id, items_count: topic.items_count, last_activity_at: topic.last_activity_at }],
      users: [{ id: user.id, name: user.name }],
      meta: { root: "comments" }
    }]
  } catch (e) {
    if (!released) await client.query("ROLLBACK").catch(() => undefined)
    throw e
  } finally {
    if (!released) client.release()
  }
}

const server = http.createServer((req, res) => {
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", async () => {
    try {
      const header = req.headers.authorization ?? ""
      const key = header.startsWith("Bearer ") ? header.slice(7).trim() : ""
      const hash = createHash("sha256").update(key, "utf8").digest("hex")
      const user = key === "" ? undefined : (await pool.query({ name: "user", text: `SELECT id, name, deactivated_at FROM users WHERE api_key_hash = $1`, values: [hash] })).rows[0]
      if (user === undefined || user.deactivated_at !== null) return json(res, 403, { error: "Not authorized" })
      if (req.method !== "POST" || req.url !== "/api/b2/comments") return json(res, 404, { error: "Not found" })
      const input = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      const [status, body] = await comment(user, input.discussion_id, input.body)
      json(res, status, body)
    } catch (e) {
      json(res, 500, { error: String(e) })
    }
  })
})
server.listen(0, "127.0.0.1", () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
process.on("message", (m) => m === "stop" && server.close(() => pool.end().then(() => process.exit(0))))
process.on("disconnect", () => process.exit(0))
