/** People: users and their identities. */
import { Effect } from "effect"
import { Outcome, Poll, Stance } from "../domain/polls.js"
import { Comment, Discussion, type Id, Identity, Reaction, User } from "../domain/records.js"
import type { UsersRepo } from "../ports/store.js"
import { SELECT_COMMENT, SELECT_POLL, USER_COLUMNS } from "../sql/records.js"
import { epochCache } from "./cache.js"
import { type Row, setClause, type SqlClient } from "./client.js"

const adminFilter = (f: { is_admin?: boolean }) => (f.is_admin === undefined ? "" : `WHERE is_admin = ${f.is_admin ? "TRUE" : "FALSE"}`)

type KeyOwner = { readonly user: User; readonly api_key_hash: string }
const keyOwner = (row: Row): KeyOwner => ({ user: User.fromRow(row), api_key_hash: row.api_key_hash as string })

export const makeUsersRepo = (c: SqlClient): UsersRepo => {
  // users by API key hash, and by id, as last read (cache.ts)
  const keys = epochCache<string, KeyOwner>(c, "users", 10_000)
  const people = epochCache<Id, User>(c, "users", 10_000)
  const { ids } = c.dialect
  return {
    byId: (id) => c.get(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, [id], User.fromRow),
    // by id (as the primary key gives them): the people a document side-loads, up to 200 for a poll's voters,
    // whose rows cost more to read than to keep (a vote's answer: 835 of 3,756 µs)
    byIds: (list) =>
      list.length === 0
        ? Effect.succeed([])
        : Effect.map(
          people.many(list, (missing) =>
            c.all(`SELECT ${USER_COLUMNS} FROM users WHERE ${ids.has("id", "ids")}`, { ids: ids.bind(missing) }, (row) => [row.id as Id, User.fromRow(row)] as const)),
          (users) => users.sort((a, b) => a.id - b.id)
        ),
    byEmail: (email) => c.get(`SELECT ${USER_COLUMNS} FROM users WHERE email = ?`, [email], User.fromRow),
    byUsername: (username) => c.get(`SELECT ${USER_COLUMNS} FROM users WHERE username = ?`, [username], User.fromRow),
    // remembered for the snapshot too: requests of one turn with the same key check the cache's freshness once
    byApiKeyHash: (hash) =>
      c.remembered(`users:key:${hash}`, keys.through(hash, c.get(`SELECT ${USER_COLUMNS}, api_key_hash FROM users WHERE api_key_hash = ?`, [hash], keyOwner))),
    byIdentity: (type, uid) =>
      c.get(
        `SELECT ${USER_COLUMNS.split(", ").map((col) => `u.${col}`).join(", ")} FROM users u JOIN identities i ON i.user_id = u.id
         WHERE i.identity_type = ? AND i.uid = ?`,
        [type, uid],
        User.fromRow
      ),
    list: (filter, page) => c.all(`SELECT ${USER_COLUMNS} FROM users ${adminFilter(filter)} ORDER BY id LIMIT ? OFFSET ?`, [page.limit, page.offset], User.fromRow),
    count: (filter) => Effect.map(c.get(`SELECT count(*) AS n FROM users ${adminFilter(filter)}`), (r) => Number(r!.n)),
    identitiesOf: (list) =>
      list.length === 0
        ? Effect.succeed([])
        : c.all(`SELECT id, user_id, identity_type, uid, email, name FROM identities WHERE ${ids.has("user_id", "ids")} ORDER BY id`, { ids: ids.bind(list) }, Identity.fromRow),
    insert: (u) =>
      Effect.map(
        c.run(`INSERT INTO users (name, username, email, country, is_admin, bot, api_key_hash, placeholder, created_at, updated_at)
               VALUES (@name, @username, @email, @country, @is_admin, @bot, @api_key_hash, @placeholder, @created_at, @updated_at) RETURNING ${USER_COLUMNS}`, User.toRow(u)),
        (r) => User.fromRow(r.rows[0])
      ),
    update: (id, patch) => {
      const row = User.toRow(patch)
      return Object.keys(row).length === 0 ? Effect.void : Effect.asVoid(c.run(`UPDATE users SET ${setClause(row)} WHERE id = @id`, { ...row, id }))
    },
    writtenBy: (id) =>
      Effect.all({
        discussions: c.all(`SELECT * FROM discussions WHERE author_id = ? ORDER BY id`, [id], Discussion.fromRow),
        comments: c.all(`${SELECT_COMMENT} WHERE c.author_id = ? ORDER BY c.id`, [id], Comment.fromRow),
        polls: c.all(`${SELECT_POLL} WHERE p.author_id = ? ORDER BY p.id`, [id], Poll.fromRow),
        stances: c.all(`SELECT * FROM stances WHERE participant_id = ? AND cast_at IS NOT NULL ORDER BY id`, [id], Stance.fromRow),
        outcomes: c.all(`SELECT * FROM outcomes WHERE author_id = ? ORDER BY id`, [id], Outcome.fromRow),
        reactions: c.all(`SELECT * FROM reactions WHERE user_id = ? ORDER BY id`, [id], Reaction.fromRow)
      }),
    claim: (id) => Effect.asVoid(c.run(`UPDATE users SET placeholder = FALSE WHERE id = ? AND placeholder = TRUE`, [id])),
    setApiKeyHash: (id, hash) => Effect.asVoid(c.run(`UPDATE users SET api_key_hash = ? WHERE id = ?`, [hash, id])),
    addIdentity: (i) =>
      Effect.map(
        c.run<{ id: Id }>(`INSERT INTO identities (user_id, identity_type, uid, email, name) VALUES (@user_id, @identity_type, @uid, @email, @name) RETURNING id`, i),
        (r) => ({ ...i, id: Number(r.rows[0]!.id) })
      ),
    deleteIdentities: (userId) => Effect.asVoid(c.run(`DELETE FROM identities WHERE user_id = ?`, [userId])),
    delete: (id) => Effect.asVoid(c.run(`DELETE FROM users WHERE id = ?`, [id]))
  }
}
