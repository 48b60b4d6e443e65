import type { Id, Identity, User } from "../domain/records.js"
import type { UsersRepo } from "../ports/store.js"
import { epochCache } from "./caches.js"
import type { Runner } from "./db.js"
import { toUser, USER_COLUMNS } from "../sql/records.js"
import { fromBools, placeholders, setClause } from "../sql/rows.js"

const maybe = (row: unknown) => (row === undefined ? undefined : toUser(row))

const filterSql = (f: { is_admin?: boolean }) => (f.is_admin === undefined ? "" : `WHERE is_admin = ${f.is_admin ? 1 : 0}`)

type KeyOwner = { readonly user: User; readonly api_key_hash: string }

export const makeUsersRepo = (run: Runner): UsersRepo => {
  // users by API key hash, as last read (caches.ts)
  const keys = epochCache<string, KeyOwner>(run.epochs, "users", 10_000)
  const people = epochCache<Id, User>(run.epochs, "users", 10_000)
  return {
  byId: (id) => run.read((_, s) => maybe(s(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`).get(id))),
  // by id (as the query's primary key gives them): the people a document side-loads, up to 200 for a poll's
  // voters, whose rows cost more to read than to keep (a vote's answer: 835 of 3,756 µs)
  byIds: (ids) =>
    ids.length === 0
      ? run.read(() => [])
      : run.read((db, s) =>
        people.many(db, s, ids, (missing) =>
          s(`SELECT ${USER_COLUMNS} FROM users WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(missing))
            .map((row) => [(row as { id: Id }).id, toUser(row)] as const)).sort((a, b) => a.id - b.id)),
  byEmail: (email) => run.read((_, s) => maybe(s(`SELECT ${USER_COLUMNS} FROM users WHERE email = ?`).get(email))),
  byUsername: (username) => run.read((_, s) => maybe(s(`SELECT ${USER_COLUMNS} FROM users WHERE username = ?`).get(username))),
  // kept for the turn's snapshot too: requests of one turn with the same key check the cache's freshness once
  byApiKeyHash: (hash) =>
    run.readKept(`users:key:${hash}`, (db, s) =>
      keys.through(db, s, hash, () => {
        const row = s(`SELECT ${USER_COLUMNS}, api_key_hash FROM users WHERE api_key_hash = ?`).get(hash) as
          | (Record<string, unknown> & { api_key_hash: string })
          | undefined
        return row === undefined ? undefined : { user: toUser(row), api_key_hash: row.api_key_hash }
      })),
  byIdentity: (type, uid) =>
    run.read((_, s) =>
      maybe(
        s(`SELECT ${USER_COLUMNS.split(", ").map((c) => `u.${c}`).join(", ")} FROM users u JOIN identities i ON i.user_id = u.id
           WHERE i.identity_type = ? AND i.uid = ?`).get(type, uid)
      )),
  list: (filter, page) =>
    run.read((_, s) =>
      s(`SELECT ${USER_COLUMNS} FROM users ${filterSql(filter)} ORDER BY id LIMIT ? OFFSET ?`).all(page.limit, page.offset).map(toUser)),
  count: (filter) => run.read((_, s) => (s(`SELECT count(*) AS n FROM users ${filterSql(filter)}`).get() as { n: number }).n),
  identitiesOf: (ids) =>
    ids.length === 0
      ? run.read(() => [])
      : run.read((_, s) =>
        s(`SELECT id, user_id, identity_type, uid, email, name FROM identities WHERE user_id IN (${placeholders(ids.length)}) ORDER BY id`)
          .all(...ids) as Array<Identity>),
  insert: (u) =>
    run.write((_, s) => {
      const row = fromBools({ ...u })
      const info = s(
        `INSERT INTO users (name, username, email, country, is_admin, bot, api_key_hash, created_at, updated_at)
         VALUES (@name, @username, @email, @country, @is_admin, @bot, @api_key_hash, @created_at, @updated_at)`
      ).run(row)
      return toUser(s(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`).get(info.lastInsertRowid))
    }),
  update: (id, patch) =>
    run.write((db) => {
      const row = fromBools(patch)
      if (Object.keys(row).length === 0) return
      db.prepare(`UPDATE users SET ${setClause(row)} WHERE id = @id`).run({ ...row, id })
    }),
  setApiKeyHash: (id, hash) => run.write((_, s) => void s(`UPDATE users SET api_key_hash = ? WHERE id = ?`).run(hash, id)),
  addIdentity: (i) =>
    run.write((_, s) => {
      const info = s(`INSERT INTO identities (user_id, identity_type, uid, email, name) VALUES (@user_id, @identity_type, @uid, @email, @name)`).run(i)
      return { ...i, id: Number(info.lastInsertRowid) }
    }),
  deleteIdentities: (userId) => run.write((_, s) => void s(`DELETE FROM identities WHERE user_id = ?`).run(userId)),
  delete: (id) => run.write((_, s) => void s(`DELETE FROM users WHERE id = ?`).run(id))
}
}
