import type { Discussion } from "../domain/records.js"
import type { DiscussionsRepo } from "../ports/store.js"
import type { Runner } from "./db.js"
import { placeholders, setClause } from "../sql/rows.js"

const maybe = (row: unknown) => row as Discussion | undefined

export const makeDiscussionsRepo = (run: Runner): DiscussionsRepo => ({
  byId: (id) => run.read((_, s) => maybe(s(`SELECT * FROM discussions WHERE id = ?`).get(id))),
  byKey: (key) => run.read((_, s) => maybe(s(`SELECT * FROM discussions WHERE key = ?`).get(key))),
  byTopicIds: (ids) =>
    ids.length === 0
      ? run.read(() => [])
      : run.read((_, s) => s(`SELECT * FROM discussions WHERE topic_id IN (${placeholders(ids.length)})`).all(...ids) as Array<Discussion>),
  insert: (d) =>
    run.write((_, s) => {
      const info = s(
        `INSERT INTO discussions (key, topic_id, author_id, title, description, description_format, created_at, updated_at)
         VALUES (@key, @topic_id, @author_id, @title, @description, @description_format, @created_at, @created_at)`
      ).run(d)
      return s(`SELECT * FROM discussions WHERE id = ?`).get(info.lastInsertRowid) as Discussion
    }),
  update: (id, patch) => run.write((_, s) => void s(`UPDATE discussions SET ${setClause(patch)} WHERE id = @id`).run({ ...patch, id }))
})
