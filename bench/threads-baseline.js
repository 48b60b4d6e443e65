/**
 * Child process: the bare baseline for bench/threads.js. node:http + better-sqlite3 with hand-written SQL that
 * answers the three benchmarked thread endpoints with the same JSON as convene (threads.js asserts it), doing the
 * same per-request work: bearer key → SHA-256 → user, the caller's memberships, the visibility check, the
 * queries and the serialisation. Records are serialised by SQLite itself (json_object), the fastest bare way.
 * The markdown document is rendered by convene's own pure renderer (`Rules.renderThreadMarkdown`), so the
 * comparison measures everything around it: storage access, HTTP, envelope.
 *
 * Only what the benchmark needs: the caller is a member of the group (no guests, no parent-group rules),
 * default paging (50, offset 0), no compact/exclude_types.
 */
import { Rules } from "@convene/core"
import { bool, GROUP, openDatabase } from "./baseline-sql.js"
import { createHash } from "node:crypto"
import * as http from "node:http"

const db = openDatabase("threads-baseline.js")

const TOPIC = `json_object('id', t.id, 'group_id', t.group_id, 'topicable_type', t.topicable_type, 'topicable_id', t.topicable_id,
  'private', ${bool("t.private")}, 'tags', json(t.tags), 'items_count', t.items_count, 'seen_by_count', t.seen_by_count, 'replies_count', max(t.items_count - 1, 0),
  'max_depth', t.max_depth, 'last_activity_at', t.last_activity_at, 'closed_at', t.closed_at, 'locked_at', t.closed_at,
  'closer_id', t.closer_id, 'pinned_at', NULL, 'created_at', t.created_at, 'updated_at', t.updated_at)`
const DISCUSSION = `json_object('id', d.id, 'key', d.key, 'topic_id', d.topic_id, 'group_id', t.group_id,
  'title', CASE WHEN d.discarded_at IS NULL THEN d.title END, 'description', CASE WHEN d.discarded_at IS NULL THEN d.description END,
  'description_format', d.description_format, 'mentioned_usernames', json(mentions(CASE WHEN d.discarded_at IS NULL THEN d.description END, d.description_format)),
  'private', ${bool("t.private")}, 'closed_at', t.closed_at,
  'last_activity_at', t.last_activity_at, 'author_id', d.author_id, 'discarded_at', d.discarded_at, 'discarded_by', d.discarded_by,
  'created_at', d.created_at, 'updated_at', d.updated_at,
  'last_read_at', (SELECT tr.last_read_at FROM topic_readers tr WHERE tr.topic_id = t.id AND tr.user_id = @caller),
  'read_ranges', json(ranges((SELECT tr.read_ranges FROM topic_readers tr WHERE tr.topic_id = t.id AND tr.user_id = @caller))),
  'discussion_reader_volume', (SELECT tv.volume FROM thread_volumes tv WHERE tv.topic_id = t.id AND tv.user_id = @caller),
  'dismissed_at', (SELECT tr.dismissed_at FROM topic_readers tr WHERE tr.topic_id = t.id AND tr.user_id = @caller),
  'seen_by_count', t.seen_by_count)`
const USER = () => `json_object('id', u.id, 'name', coalesce(u.name, u.username, 'Anonymous'), 'username', u.username,
  'country', u.country, 'bot', ${bool("u.bot")}, 'deactivated_at', u.deactivated_at) `
const userWithEmail = `json_set(${USER()}, '$.email', u.email)`
const usersOf = (idsSql) =>
  `SELECT coalesce(json_group_array(json(CASE WHEN u.id = @caller THEN ${userWithEmail} ELSE ${USER()} END)), '[]')
   FROM users u WHERE u.id IN (${idsSql})`

const q = {
  user: db.prepare(`SELECT id, deactivated_at FROM users WHERE api_key_hash = ?`),
  memberOf: db.prepare(`SELECT 1 FROM memberships WHERE user_id = ? AND group_id = ? AND revoked_at IS NULL`).pluck(),
  group: db.prepare(`SELECT id FROM groups WHERE id = ?`).pluck(),
  groupJson: db.prepare(`SELECT ${GROUP} FROM groups g LEFT JOIN groups p ON p.id = g.parent_id WHERE g.id = ?`).pluck(),
  // the page of open, kept discussion threads of the group, latest activity first
  page: db.prepare(`
    WITH page AS (SELECT t.id FROM topics t WHERE t.group_id = @group AND t.topicable_type = 'Discussion'
                  AND t.discarded_at IS NULL AND t.closed_at IS NULL
                  ORDER BY t.last_activity_at DESC, t.id DESC LIMIT 50)
    SELECT (SELECT json_group_array(json(x)) FROM (SELECT ${DISCUSSION} AS x FROM page JOIN topics t ON t.id = page.id
              JOIN discussions d ON d.topic_id = t.id ORDER BY t.last_activity_at DESC, t.id DESC)) AS discussions,
           (SELECT json_group_array(json(x)) FROM (SELECT ${TOPIC} AS x FROM page JOIN topics t ON t.id = page.id
              ORDER BY t.last_activity_at DESC, t.id DESC)) AS topics,
           (${usersOf("SELECT d.author_id FROM page JOIN discussions d ON d.topic_id = page.id")}) AS users`),
  total: db.prepare(`SELECT count(*) FROM topics t WHERE t.group_id = ? AND t.topicable_type = 'Discussion'
                     AND t.discarded_at IS NULL AND t.closed_at IS NULL`).pluck(),
  topic: db.prepare(`SELECT * FROM topics WHERE id = ?`),
  itemsDoc: db.prepare(`
    SELECT (SELECT json_group_array(json(x)) FROM (SELECT json_object('id', i.id, 'topic_id', i.topic_id, 'sequence_id', i.sequence_id,
              'kind', i.kind, 'parent_id', i.parent_id, 'depth', i.depth, 'position', i.position, 'position_key', i.position_key,
              'child_count', i.child_count, 'itemable_type', i.itemable_type, 'itemable_id', i.itemable_id, 'actor_id', i.actor_id,
              'pinned', json('false'), 'created_at', i.created_at) AS x FROM topic_items i WHERE i.topic_id = @topic ORDER BY i.sequence_id)) AS items,
           (SELECT json_group_array(json(${DISCUSSION})) FROM discussions d JOIN topics t ON t.id = d.topic_id WHERE t.id = @topic) AS discussions,
           (SELECT json_group_array(json(x)) FROM (SELECT json_object('id', c.id, 'discussion_id', c.discussion_id, 'topic_id', d.topic_id,
              'parent_id', c.parent_id, 'author_id', c.author_id, 'body', CASE WHEN c.discarded_at IS NULL THEN c.body END,
              'body_format', c.body_format, 'mentioned_usernames', json(mentions(CASE WHEN c.discarded_at IS NULL THEN c.body END, c.body_format)),
              'edited_at', c.edited_at, 'discarded_at', c.discarded_at, 'discarded_by', c.discarded_by,
              'created_at', c.created_at, 'updated_at', c.updated_at) AS x
              FROM comments c JOIN discussions d ON d.id = c.discussion_id WHERE d.topic_id = @topic ORDER BY c.id)) AS comments,
           (SELECT coalesce(json_group_array(json(x)), '[]') FROM (SELECT json_object('id', r.id, 'reactable_type', r.reactable_type,
              'reactable_id', r.reactable_id, 'user_id', r.user_id, 'reaction', r.reaction, 'created_at', r.created_at) AS x
              FROM reactions r WHERE r.topic_id = @topic ORDER BY r.id)) AS reactions,
           (SELECT json_group_array(json(${TOPIC})) FROM topics t WHERE t.id = @topic) AS topics,
           (${usersOf(`SELECT author_id FROM discussions WHERE topic_id = @topic
              UNION SELECT actor_id FROM topic_items WHERE topic_id = @topic
              UNION SELECT c.author_id FROM comments c JOIN discussions d ON d.id = c.discussion_id WHERE d.topic_id = @topic
              UNION SELECT user_id FROM reactions WHERE topic_id = @topic`)}) AS users,
           (SELECT count(*) FROM topic_items WHERE topic_id = @topic) AS total`),
  // rows for the markdown renderer
  discussion: db.prepare(`SELECT * FROM discussions WHERE topic_id = ?`),
  items: db.prepare(`SELECT * FROM topic_items WHERE topic_id = ? ORDER BY sequence_id`),
  pollsOfTopic: db.prepare(`SELECT id FROM polls WHERE topic_id = ? AND discarded_at IS NULL LIMIT 1`),
  comments: db.prepare(`SELECT c.*, d.topic_id FROM comments c JOIN discussions d ON d.id = c.discussion_id WHERE d.topic_id = ?`),
  reactions: db.prepare(`SELECT * FROM reactions WHERE topic_id = ? ORDER BY id`),
  users: db.prepare(`SELECT id, name, username FROM users WHERE id IN (SELECT author_id FROM discussions WHERE topic_id = @t
    UNION SELECT c.author_id FROM comments c JOIN discussions d ON d.id = c.discussion_id WHERE d.topic_id = @t
    UNION SELECT user_id FROM reactions WHERE topic_id = @t)`),
  groupNames: db.prepare(`SELECT g.name, p.name AS parent FROM groups g LEFT JOIN groups p ON p.id = g.parent_id WHERE g.id = ?`)
}

const fail = (res, status, error) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify({ error }))
}

/** A thread the caller may read: kept, in a group where the caller is a member. */
const readableTopic = (user, id) => {
  const topic = q.topic.get(id)
  return topic === undefined || topic.discarded_at !== null || q.memberOf.get(user.id, topic.group_id) === undefined ? undefined : topic
}

const handle = (req, res) => {
  const header = req.headers.authorization ?? ""
  const hash = createHash("sha256").update(header.startsWith("Bearer ") ? header.slice(7).trim() : "", "utf8").digest("hex")
  const user = q.user.get(hash)
  if (user === undefined || user.deactivated_at !== null) return fail(res, 403, "Invalid API key")
  const url = new URL(req.url, "http://x")
  let body
  const thread = /^\/api\/b2\/threads\/([0-9]+)\/(items|markdown)$/.exec(url.pathname)
  if (url.pathname === "/api/b2/discussions") {
    const groupId = Number(url.searchParams.get("group_id"))
    if (q.group.get(groupId) === undefined) return fail(res, 404, "Not found")
    if (q.memberOf.get(user.id, groupId) === undefined) return fail(res, 403, "Not authorized")
    const page = q.page.get({ group: groupId, caller: user.id })
    body = `{"discussions":${page.discussions},"topics":${page.topics},"groups":[${q.groupJson.get(groupId)}],` +
      `"users":${page.users},"meta":{"root":"discussions","total":${q.total.get(groupId)}}}`
  } else if (thread !== null) {
    const topic = readableTopic(user, Number(thread[1]))
    if (topic === undefined) return fail(res, 404, "Not found")
    if (thread[2] === "items") {
      const d = q.itemsDoc.get({ topic: topic.id, caller: user.id })
      // the benchmark's thread has no polls; look, as convene does, and refuse to answer wrongly if it had
      if (q.pollsOfTopic.get(topic.id) !== undefined) return fail(res, 501, "the baseline does not serve polls")
      body = `{"items":${d.items},"discussions":${d.discussions},"comments":${d.comments},"reactions":${d.reactions},` +
        `"polls":[],"poll_options":[],"stances":[],"outcomes":[],` +
        `"topics":${d.topics},"groups":[${q.groupJson.get(topic.group_id)}],"users":${d.users},"meta":{"root":"items","total":${d.total}}}`
    } else {
      const names = q.groupNames.get(topic.group_id)
      const markdown = Rules.renderThreadMarkdown({
        topic: { ...topic, tags: JSON.parse(topic.tags) },
        discussion: q.discussion.get(topic.id),
        groupName: names.parent === null ? names.name : `${names.parent} - ${names.name}`,
        items: q.items.all(topic.id),
        comments: new Map(q.comments.all(topic.id).map((c) => [c.id, c])),
        reactions: q.reactions.all(topic.id),
        users: new Map(q.users.all({ t: topic.id }).map((u) => [u.id, u])),
        polls: new Map(),
        stances: new Map(),
        outcomes: new Map()
      })
      body = JSON.stringify({ markdown })
    }
  } else return fail(res, 404, "Not found")
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}

const server = http.createServer((req, res) => {
  try {
    handle(req, res)
  } catch (e) {
    console.error(e)
    fail(res, 500, "Internal error")
  }
})
server.listen(0, "127.0.0.1", () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
const stop = () => server.close(() => process.exit(0))
process.on("message", (m) => m === "stop" && stop())
process.on("disconnect", stop)
