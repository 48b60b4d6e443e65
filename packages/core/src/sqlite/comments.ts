import type { Comment } from "../domain/records.js"
import type { CommentsRepo } from "../ports/store.js"
import type { Runner } from "./db.js"
import { SELECT_COMMENT } from "../sql/records.js"
import { placeholders, setClause } from "../sql/rows.js"

export const makeCommentsRepo = (run: Runner): CommentsRepo => ({
  byId: (id) => run.read((_, s) => s(`${SELECT_COMMENT} WHERE c.id = ?`).get(id) as Comment | undefined),
  byIds: (ids) =>
    ids.length === 0
      ? run.read(() => [])
      : run.read((_, s) => s(`${SELECT_COMMENT} WHERE c.id IN (${placeholders(ids.length)}) ORDER BY c.id`).all(...ids) as Array<Comment>),
  insert: (c) =>
    run.write((_, s) => {
      const info = s(
        `INSERT INTO comments (discussion_id, parent_id, author_id, body, body_format, created_at, updated_at)
         VALUES (@discussion_id, @parent_id, @author_id, @body, @body_format, @created_at, @created_at)`
      ).run(c)
      return s(`${SELECT_COMMENT} WHERE c.id = ?`).get(info.lastInsertRowid) as Comment
    }),
  update: (id, patch) => run.write((_, s) => void s(`UPDATE comments SET ${setClause(patch)} WHERE id = @id`).run({ ...patch, id }))
})
