/**
 * Child process: the bare baseline for bench/reports-search.js. node:http + better-sqlite3 with hand-written SQL
 * that answers the benchmarked report and search requests with the same JSON as convene (reports-search.js
 * asserts it), doing the same per-request work: bearer key → SHA-256 → user, the caller's memberships, the
 * queries (the same FTS5 and trigram indexes) and the serialisation, with rows serialised by SQLite
 * (json_object) where that is the fastest bare way. The query text is turned into an FTS5 expression, and typo
 * alternatives are picked, by convene's own pure functions (`Rules.searchTerms`, `matchExpression`,
 * `fuzzyAlternatives`, `highlightHtml`), so the comparison measures everything around them.
 *
 * Only what the benchmark needs: `section=users&group_scope=custom&group_ids=<one group>` with the default
 * window; search by `query` alone, the caller a member or the threads public; no poll in the data hides its
 * results, so votes need no per-reader check; no compact/exclude_types.
 */
import { Rules } from "@convene/core"
import { bool, GROUP, openDatabase } from "./baseline-sql.js"
import { createHash } from "node:crypto"
import * as http from "node:http"

const db = openDatabase("reports-search-baseline.js")

const USER = `json_object('id', u.id, 'name', coalesce(u.name, u.username, 'Anonymous'), 'username', u.username,
  'country', u.country, 'bot', ${bool("u.bot")}, 'deactivated_at', u.deactivated_at)`

const IN_GROUP = "t.group_id = @group AND t.discarded_at IS NULL"
const WITHIN = (col) => `${col} >= @start AND ${col} < @end`

const RESULT = `sd.id, sd.searchable_type, sd.searchable_id, sd.topic_id, t.group_id, t.tags, sd.author_id, sd.authored_at,
  snippet(search_fts, 0, char(2), char(3), '…', 32) AS excerpt, d.id AS discussion_id, d.key AS discussion_key, d.title AS discussion_title,
  p.id AS poll_id, p.key AS poll_key, p.title AS poll_title`
const FOUND = `FROM search_fts JOIN search_documents sd ON sd.id = search_fts.rowid
  JOIN topics t ON t.id = sd.topic_id LEFT JOIN groups g ON g.id = t.group_id
  LEFT JOIN discussions d ON d.topic_id = sd.topic_id LEFT JOIN polls p ON p.id = sd.poll_id
  WHERE search_fts MATCH @match AND t.discarded_at IS NULL
    AND (t.group_id IN (SELECT group_id FROM memberships WHERE user_id = @caller AND revoked_at IS NULL)
         OR (t.private = 0 AND g.is_visible_to_public = 1))
    AND (sd.poll_id IS NULL OR p.discarded_at IS NULL)`

const q = {
  user: db.prepare(`SELECT id, deactivated_at FROM users WHERE api_key_hash = ?`),
  memberOf: db.prepare(`SELECT 1 FROM memberships WHERE user_id = ? AND group_id = ? AND revoked_at IS NULL`).pluck(),
  myGroups: db.prepare(`SELECT g.id, g.name, g.created_at FROM memberships m JOIN groups g ON g.id = m.group_id
    WHERE m.user_id = ? AND m.revoked_at IS NULL ORDER BY g.id`),
  // every member and everyone with activity, with their counts, as one JSON array
  userRows: db.prepare(`
    WITH members AS MATERIALIZED (SELECT user_id AS u, max(delegate) AS delegate FROM memberships WHERE group_id = @group AND revoked_at IS NULL GROUP BY user_id),
    th AS MATERIALIZED (SELECT d.author_id AS u, count(*) AS n FROM discussions d JOIN topics t ON t.id = d.topic_id
      WHERE d.discarded_at IS NULL AND ${IN_GROUP} AND ${WITHIN("d.created_at")} GROUP BY d.author_id),
    co AS MATERIALIZED (SELECT c.author_id AS u, count(*) AS n FROM comments c JOIN discussions d ON d.id = c.discussion_id JOIN topics t ON t.id = d.topic_id
      WHERE c.discarded_at IS NULL AND d.discarded_at IS NULL AND ${IN_GROUP} AND ${WITHIN("c.created_at")} GROUP BY c.author_id),
    po AS MATERIALIZED (SELECT p.author_id AS u, count(*) AS n FROM polls p JOIN topics t ON t.id = p.topic_id
      WHERE p.discarded_at IS NULL AND ${IN_GROUP} AND ${WITHIN("p.created_at")} GROUP BY p.author_id),
    oc AS MATERIALIZED (SELECT o.author_id AS u, count(*) AS n FROM outcomes o JOIN polls p ON p.id = o.poll_id JOIN topics t ON t.id = p.topic_id
      WHERE p.discarded_at IS NULL AND ${IN_GROUP} AND ${WITHIN("o.created_at")} GROUP BY o.author_id),
    re AS MATERIALIZED (SELECT r.user_id AS u, count(*) AS n FROM reactions r JOIN topics t ON t.id = r.topic_id
      WHERE ${IN_GROUP} AND ${WITHIN("r.created_at")} GROUP BY r.user_id),
    vo AS MATERIALIZED (SELECT s.participant_id AS u, count(*) AS issued, count(s.cast_at) AS cast
      FROM stances s JOIN polls p ON p.id = s.poll_id JOIN topics t ON t.id = p.topic_id
      WHERE s.latest = 1 AND s.revoked_at IS NULL AND p.discarded_at IS NULL AND p.anonymous = 0 AND ${IN_GROUP} AND ${WITHIN("s.created_at")}
      GROUP BY s.participant_id),
    people AS (SELECT u FROM members UNION SELECT u FROM th UNION SELECT u FROM co UNION SELECT u FROM po
      UNION SELECT u FROM oc UNION SELECT u FROM re UNION SELECT u FROM vo)
    SELECT coalesce(json_group_array(json(x)), '[]') FROM (
      SELECT json_object('id', us.id, 'name', coalesce(us.name, us.username, 'Anonymous'), 'country', us.country,
        'delegate', ${bool("coalesce(m.delegate, 0)")}, 'threads', coalesce(th.n, 0), 'comments', coalesce(co.n, 0),
        'polls', coalesce(po.n, 0), 'votes', coalesce(v.cast, 0), 'outcomes', coalesce(oc.n, 0), 'reactions', coalesce(re.n, 0),
        'votes_issued', coalesce(v.issued, 0), 'votes_cast', coalesce(v.cast, 0), 'votes_missed', coalesce(v.issued, 0) - coalesce(v.cast, 0),
        'all_votes_cast', ${bool("coalesce(v.issued, 0) > 0 AND v.issued = v.cast")}) AS x
      FROM people JOIN users us ON us.id = people.u LEFT JOIN members m ON m.u = people.u LEFT JOIN th ON th.u = people.u
      LEFT JOIN co ON co.u = people.u LEFT JOIN po ON po.u = people.u LEFT JOIN oc ON oc.u = people.u
      LEFT JOIN re ON re.u = people.u LEFT JOIN vo v ON v.u = people.u
      ORDER BY us.id)`).pluck(),
  found: db.prepare(`SELECT ${RESULT} ${FOUND} ORDER BY search_fts.rank, sd.id DESC LIMIT @limit`),
  foundMore: db.prepare(`SELECT ${RESULT} ${FOUND} AND sd.id NOT IN (SELECT value FROM json_each(@exclude))
    ORDER BY search_fts.rank, sd.id DESC LIMIT @limit`),
  words: db.prepare(`SELECT w.word FROM search_trigrams JOIN search_words w ON w.id = search_trigrams.rowid
    WHERE search_trigrams MATCH @match AND length(w.word) BETWEEN @min AND @max ORDER BY search_trigrams.rank LIMIT 200`).pluck(),
  groups: db.prepare(`SELECT coalesce(json_group_array(json(x)), '[]') FROM (SELECT ${GROUP} AS x FROM groups g LEFT JOIN groups p ON p.id = g.parent_id
    WHERE g.id IN (SELECT value FROM json_each(?)) ORDER BY g.id)`).pluck(),
  groupNames: db.prepare(`SELECT g.id, g.key, g.handle, CASE WHEN p.id IS NULL THEN g.name ELSE p.name || ' - ' || g.name END AS full_name
    FROM groups g LEFT JOIN groups p ON p.id = g.parent_id WHERE g.id IN (SELECT value FROM json_each(?))`),
  users: db.prepare(`SELECT coalesce(json_group_array(json(CASE WHEN u.id = @caller THEN json_set(${USER}, '$.email', u.email) ELSE ${USER} END)), '[]')
    FROM (SELECT * FROM users WHERE id IN (SELECT value FROM json_each(@ids)) ORDER BY id) u`).pluck(),
  names: db.prepare(`SELECT id, coalesce(name, username, 'Anonymous') AS name FROM users WHERE id IN (SELECT value FROM json_each(?))`)
}

const fail = (res, status, error) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify({ error }))
}

const month = (d) => d.toISOString().slice(0, 7)

const report = (user, url) => {
  const groupId = Number(url.searchParams.get("group_ids"))
  const now = new Date()
  const startDate = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 12, 1))
  const endDate = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
  const mine = q.myGroups.all(user.id)
  const member = q.memberOf.get(user.id, groupId) !== undefined
  const rows = member ? q.userRows.get({ group: groupId, start: startDate.toISOString(), end: endDate.toISOString() }) : "[]"
  const meta = {
    section: "users", start_month: month(startDate), end_month: month(now), group_scope: "custom", group_ids: member ? [groupId] : [],
    all_groups: mine.map((g) => ({ id: g.id, name: g.name })),
    first_year: Math.min(now.getUTCFullYear(), ...mine.map((g) => Number(g.created_at.slice(0, 4)))), current_user_is_admin: false
  }
  return `${JSON.stringify(meta).slice(0, -1)},"users":${rows}}`
}

const search = (user, url) => {
  const terms = Rules.searchTerms(url.searchParams.get("query") ?? "")
  const hits = terms.length === 0 ? [] : q.found.all({ match: Rules.matchExpression(terms), caller: user.id, limit: 20 })
  if (terms.length > 0 && hits.length < 20 && terms.length <= 8) {
    const alternatives = new Map()
    for (const term of new Set(terms)) {
      if (!Rules.fuzzyEligible(term)) continue
      const { min, max } = Rules.fuzzyLengths(term)
      const alts = Rules.fuzzyAlternatives(term, q.words.all({ match: Rules.trigramExpression(term), min, max }))
      if (alts.length > 0) alternatives.set(term, alts)
    }
    if (alternatives.size > 0) {
      hits.push(...q.foundMore.all({
        match: Rules.matchExpression(terms, alternatives), caller: user.id, limit: 20 - hits.length, exclude: JSON.stringify(hits.map((h) => h.id))
      }))
    }
  }
  const groupIds = JSON.stringify([...new Set(hits.map((h) => h.group_id).filter((g) => g !== null))])
  const groups = new Map(q.groupNames.all(groupIds).map((g) => [g.id, g]))
  const authorIds = JSON.stringify([...new Set(hits.map((h) => h.author_id).filter((a) => a !== null))])
  const names = new Map(q.names.all(authorIds).map((u) => [u.id, u.name]))
  const results = hits.map((h) => {
    const g = groups.get(h.group_id)
    return {
      id: h.id, searchable_type: h.searchable_type, searchable_id: h.searchable_id, highlight: Rules.highlightHtml(h.excerpt),
      topic_id: h.topic_id, group_id: h.group_id, group_name: g?.full_name ?? null, group_key: g?.key ?? null, group_handle: g?.handle ?? null,
      discussion_id: h.discussion_id, discussion_key: h.discussion_key, discussion_title: h.discussion_title,
      poll_id: h.poll_id, poll_key: h.poll_key, poll_title: h.poll_title, author_id: h.author_id,
      author_name: h.author_id === null ? null : names.get(h.author_id) ?? null, authored_at: h.authored_at, tags: JSON.parse(h.tags)
    }
  })
  return `{"search_results":${JSON.stringify(results)},"groups":${q.groups.get(groupIds)},` +
    `"users":${q.users.get({ ids: authorIds, caller: user.id })},"meta":{"root":"search_results"}}`
}

const handle = (req, res) => {
  const header = req.headers.authorization ?? ""
  const hash = createHash("sha256").update(header.startsWith("Bearer ") ? header.slice(7).trim() : "", "utf8").digest("hex")
  const user = q.user.get(hash)
  if (user === undefined || user.deactivated_at !== null) return fail(res, 403, "Invalid API key")
  const url = new URL(req.url, "http://x")
  let body
  if (url.pathname === "/api/b2/reports") body = report(user, url)
  else if (url.pathname === "/api/b2/search") body = search(user, url)
  else return fail(res, 404, "Not found")
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
