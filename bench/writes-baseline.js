/**
 * Child process: the bare baseline for bench/writes.js. node:http + better-sqlite3 (WAL, synchronous = FULL,
 * foreign keys: convene's write pragmas) with hand-written SQL, answering `POST /api/b2/comments`
 * (`{"discussion_id": …, "body": "…"}`) and `POST /api/b2/discussions` (`{"group_id": …, "title": "…",
 * "description": "…"}`) with the same JSON as convene (writes.js asserts it).
 *
 * A comment does the same database work as convene's `Comments.createComment`, in one BEGIN IMMEDIATE
 * transaction committed before the answer: bearer key → SHA-256 → user; the discussion, its thread and the
 * caller's membership (may they comment); the comment (the schema's triggers index it for search, as in
 * convene); its thread item (next sequence_id, under the thread's first item, child_count bumped, position_key
 * as convene's sqlite/items.ts); the thread's items_count and activity; the webhook outbox row with the message
 * convene writes, and one delivery per subscribed chatbot, each combined as convene combines them. Then the
 * answer: the comment, its discussion, the thread (as its update answered it) and the caller.
 *
 * A discussion, likewise in one transaction: the caller's membership and the group's settings (may they start
 * one, and its privacy); the thread (the schema's triggers count it on the group and index it for search), the
 * discussion, the thread's first item (sequence 0) and its activity, the webhook outbox row and deliveries.
 * The answer: the discussion, its thread, its group with its counters and the caller.
 *
 * Only what the benchmark needs: markdown bodies, no replies, members only (no guests), no `api_key` body field.
 */
import { formatRanges, GROUP, mentions, openDatabase, parseRanges, readerFields, readerStatements } from "./baseline-sql.js"
import { createHash, randomBytes } from "node:crypto"
import * as http from "node:http"

const db = openDatabase("comments-baseline.js", { writable: true })

const q = {
  user: db.prepare(`SELECT id, name, username, email, country, bot, deactivated_at FROM users WHERE api_key_hash = ?`),
  discussion: db.prepare(`SELECT * FROM discussions WHERE id = ?`),
  topic: db.prepare(`SELECT * FROM topics WHERE id = ?`),
  member: db.prepare(`SELECT 1 FROM memberships WHERE group_id = ? AND user_id = ? AND revoked_at IS NULL`).pluck(),
  insertComment: db.prepare(`INSERT INTO comments (discussion_id, parent_id, author_id, body, body_format, created_at, updated_at)
                             VALUES (?, NULL, ?, ?, 'md', ?, ?)`),
  // combined as convene combines them: the first item counted and found by one update, the next sequence id
  // found by the item's insert, the event answering how many chatbots take it
  bumpRoot: db.prepare(`UPDATE topic_items SET child_count = child_count + 1 WHERE topic_id = ? AND sequence_id = 0 RETURNING id, depth, position_key, child_count`),
  insertItem: db.prepare(`INSERT INTO topic_items (topic_id, kind, sequence_id, parent_id, depth, position, position_key, itemable_type, itemable_id, actor_id, created_at)
                          VALUES (@topic, 'new_comment', (SELECT coalesce(max(sequence_id), 0) + 1 FROM topic_items WHERE topic_id = @topic), @parent, @depth, @position, @key, 'Comment', @comment, @actor, @at)
                          RETURNING sequence_id`),
  touchTopic: db.prepare(`UPDATE topics SET items_count = items_count + 1, last_activity_at = ?, updated_at = ? WHERE id = ? RETURNING *`),
  event: db.prepare(`INSERT INTO webhook_events (kind, group_id, actor_id, eventable_type, eventable_id, message, created_at)
                     VALUES ('new_comment', @group, @actor, 'Comment', @comment, @message, @at)
                     RETURNING id, (SELECT count(*) FROM chatbots WHERE group_id = @group AND EXISTS (SELECT 1 FROM json_each(event_kinds) WHERE value = 'new_comment')) AS bots`),
  chatbots: db.prepare(`SELECT id FROM chatbots WHERE group_id = ? AND EXISTS (SELECT 1 FROM json_each(event_kinds) WHERE value = 'new_comment')`).pluck(),
  delivery: db.prepare(`INSERT INTO webhook_deliveries (event_id, chatbot_id, next_attempt_at, created_at) VALUES (?, ?, ?, ?)`),
  group: db.prepare(`SELECT id, discussion_privacy_options, members_can_start_discussions FROM groups WHERE id = ?`),
  membership: db.prepare(`SELECT admin FROM memberships WHERE group_id = ? AND user_id = ? AND revoked_at IS NULL AND accepted_at IS NOT NULL`),
  insertTopic: db.prepare(`INSERT INTO topics (group_id, topicable_type, private, last_activity_at, created_at, updated_at)
                           VALUES (?, 'Discussion', ?, ?, ?, ?)`),
  insertDiscussion: db.prepare(`INSERT INTO discussions (key, topic_id, author_id, title, description, description_format, created_at, updated_at)
                                VALUES (?, ?, ?, ?, ?, 'md', ?, ?)`),
  insertRoot: db.prepare(`INSERT INTO topic_items (topic_id, kind, sequence_id, parent_id, depth, position, itemable_type, itemable_id, actor_id, created_at)
                          VALUES (?, 'new_discussion', 0, NULL, 0, 0, 'Discussion', ?, ?, ?)`),
  startTopic: db.prepare(`UPDATE topics SET topicable_id = ?, items_count = items_count + 1, last_activity_at = ?, updated_at = ? WHERE id = ?`),
  discussionEvent: db.prepare(`INSERT INTO webhook_events (kind, group_id, actor_id, eventable_type, eventable_id, message, created_at)
                               VALUES ('new_discussion', ?, ?, 'Discussion', ?, ?, ?)`),
  discussionBots: db.prepare(`SELECT id FROM chatbots WHERE group_id = ? AND EXISTS (SELECT 1 FROM json_each(event_kinds) WHERE value = 'new_discussion')`).pluck(),
  groupJson: db.prepare(`SELECT ${GROUP} AS json FROM groups g LEFT JOIN groups p ON p.id = g.parent_id WHERE g.id = ?`).pluck()
}
const r = readerStatements(db)
const begin = db.prepare("BEGIN IMMEDIATE")
const commit = db.prepare("COMMIT")
const rollback = db.prepare("ROLLBACK")

const json = (res, status, body) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const topicJson = (t) => ({
  id: t.id, group_id: t.group_id, topicable_type: t.topicable_type, topicable_id: t.topicable_id, private: t.private === 1,
  tags: JSON.parse(t.tags), items_count: t.items_count, seen_by_count: t.seen_by_count, replies_count: Math.max(t.items_count - 1, 0), max_depth: t.max_depth,
  last_activity_at: t.last_activity_at, closed_at: t.closed_at, locked_at: t.closed_at, closer_id: t.closer_id, pinned_at: null,
  created_at: t.created_at, updated_at: t.updated_at
})

/** Writing is reading (convene's recordItem): the author's reader with this item added, in the write's transaction; the reader as left. */
const markOwn = (topicId, userId, sequence, at) => {
  const reader = r.reader.get(topicId, userId)
  const ranges = formatRanges(parseRanges([reader?.read_ranges ?? "", ...(sequence > 0 ? [String(sequence)] : [])].filter((x) => x !== "").join(",")))
  if (reader !== undefined && reader.last_read_at !== null && ranges === (reader.read_ranges ?? "")) return reader
  r.markRead.run({ topic: topicId, user: userId, at, ranges, previous: reader?.read_ranges ?? "" })
  return { ...reader, read_ranges: ranges, last_read_at: at, dismissed_at: reader?.dismissed_at ?? null }
}

const userJson = (user) => ({ id: user.id, name: user.name ?? user.username ?? "Anonymous", username: user.username, country: user.country, bot: user.bot === 1, deactivated_at: user.deactivated_at, email: user.email })
const discussionJson = (d, t, reader, volume) => ({
  id: d.id, key: d.key, topic_id: d.topic_id, group_id: t.group_id, title: d.title, description: d.description,
  description_format: d.description_format, mentioned_usernames: d.description_format === "md" ? mentions(d.description) : [],
  private: t.private === 1, closed_at: t.closed_at,
  last_activity_at: t.last_activity_at, author_id: d.author_id, discarded_at: d.discarded_at, discarded_by: d.discarded_by,
  created_at: d.created_at, updated_at: d.updated_at,
  // its files (decisions §14): none here, and convene reads none where the thread has none (its counted files, read ahead)
  attachments: [],
  // the caller's reader as the write left it, and their volume read before it (as convene's answer)
  ...readerFields(reader, volume, t)
})

/** One comment, written and committed as convene writes it; the answer's records. */
const comment = (user, discussionId, body) => {
  const d = q.discussion.get(discussionId)
  if (d === undefined || d.discarded_at !== null) return [404, { error: `Discussion ${discussionId} not found` }]
  const now = new Date().toISOString()
  const volume = r.volume.get(user.id, d.topic_id)
  begin.run()
  try {
    const t = q.topic.get(d.topic_id)
    if (q.member.get(t.group_id, user.id) === undefined || t.closed_at !== null) {
      rollback.run()
      return [403, { error: "Not authorized to create Comment." }]
    }
    const id = Number(q.insertComment.run(d.id, user.id, body, now, now).lastInsertRowid)
    const root = q.bumpRoot.get(t.id)
    const key = String(root.child_count).padStart(5, "0")
    // the thread as this write leaves it, for the answer
    const topic = q.touchTopic.get(now, now, t.id)
    const item = q.insertItem.get({
      topic: t.id, parent: root.id, depth: root.depth + 1, position: root.child_count,
      key: root.position_key === null ? key : `${root.position_key}-${key}`, comment: id, actor: user.id, at: now
    })
    const reader = markOwn(t.id, user.id, item.sequence_id, now)
    r.live.run(t.group_id, t.id, now)
    const message = JSON.stringify({
      headline: `${user.name ?? user.username ?? "Anonymous"} commented`,
      title: d.title,
      path: `/d/${d.key}/comment/${id}`,
      body: body || null,
      recipient_message: null
    })
    const event = q.event.get({ group: t.group_id, actor: user.id, comment: id, message, at: now })
    if (event.bots > 0) for (const bot of q.chatbots.all(t.group_id)) q.delivery.run(event.id, bot, now, now)
    commit.run()
    return [200, {
      comments: [{
        id, discussion_id: d.id, topic_id: t.id, parent_id: null, author_id: user.id, body, body_format: "md", mentioned_usernames: mentions(body),
        edited_at: null,
        discarded_at: null, discarded_by: null, created_at: now, updated_at: now, attachments: []
      }],
      discussions: [discussionJson(d, topic, reader, volume)],
      topics: [topicJson(topic)],
      users: [userJson(user)],
      meta: { root: "comments" }
    }]
  } catch (e) {
    if (db.inTransaction) rollback.run()
    throw e
  }
}

/** One discussion, written and committed as convene writes it; the answer's records. */
const discussion = (user, groupId, title, description) => {
  const now = new Date().toISOString()
  begin.run()
  try {
    const g = q.group.get(groupId)
    if (g === undefined) {
      rollback.run()
      return [404, { error: `Group ${groupId} not found` }]
    }
    const m = q.membership.get(g.id, user.id)
    if (m === undefined || (m.admin !== 1 && g.members_can_start_discussions !== 1)) {
      rollback.run()
      return [403, { error: "Not authorized to create Discussion." }]
    }
    const isPrivate = g.discussion_privacy_options === "public_only" ? 0 : 1
    const topicId = Number(q.insertTopic.run(g.id, isPrivate, now, now, now).lastInsertRowid)
    const key = randomBytes(6).toString("base64url")
    const id = Number(q.insertDiscussion.run(key, topicId, user.id, title, description, now, now).lastInsertRowid)
    q.insertRoot.run(topicId, id, user.id, now)
    q.startTopic.run(id, now, now, topicId)
    const reader = markOwn(topicId, user.id, 0, now)
    r.live.run(g.id, topicId, now)
    const message = JSON.stringify({
      headline: `${user.name ?? user.username ?? "Anonymous"} started a discussion`,
      title,
      path: `/d/${key}`,
      body: description || null,
      recipient_message: null
    })
    const event = Number(q.discussionEvent.run(g.id, user.id, id, message, now).lastInsertRowid)
    for (const bot of q.discussionBots.all(g.id)) q.delivery.run(event, bot, now, now)
    commit.run()
    const t = q.topic.get(topicId)
    return [200, {
      discussions: [discussionJson(q.discussion.get(id), t, r.reader.get(topicId, user.id), r.volume.get(user.id, topicId))],
      topics: [topicJson(t)],
      groups: [JSON.parse(q.groupJson.get(g.id))],
      users: [userJson(user)],
      meta: { root: "discussions" }
    }]
  } catch (e) {
    if (db.inTransaction) rollback.run()
    throw e
  }
}

const server = http.createServer((req, res) => {
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", () => {
    const header = req.headers.authorization ?? ""
    const key = header.startsWith("Bearer ") ? header.slice(7).trim() : ""
    const user = key === "" ? undefined : q.user.get(createHash("sha256").update(key, "utf8").digest("hex"))
    if (user === undefined || user.deactivated_at !== null) return json(res, 403, { error: "Not authorized" })
    const route = req.method === "POST" ? req.url : undefined
    if (route !== "/api/b2/comments" && route !== "/api/b2/discussions") return json(res, 404, { error: "Not found" })
    let input
    try {
      input = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return json(res, 400, { error: "Invalid JSON" })
    }
    if (route === "/api/b2/discussions") {
      if (!Number.isInteger(input.group_id) || typeof input.title !== "string" || input.title.trim() === "") {
        return json(res, 422, { errors: { title: ["can't be blank"] } })
      }
      const [status, body] = discussion(user, input.group_id, input.title, typeof input.description === "string" ? input.description : "")
      return json(res, status, body)
    }
    if (!Number.isInteger(input.discussion_id) || typeof input.body !== "string" || input.body.trim() === "") {
      return json(res, 422, { errors: { body: ["can't be blank"] } })
    }
    const [status, body] = comment(user, input.discussion_id, input.body)
    json(res, status, body)
  })
})
server.listen(0, "127.0.0.1", () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
const stop = () => server.close(() => {
  db.close()
  process.exit(0)
})
process.on("message", (m) => m === "stop" && stop())
process.on("disconnect", stop)
