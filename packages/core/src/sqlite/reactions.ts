import type { Reaction } from "../domain/records.js"
import type { ReactionsRepo } from "../ports/store.js"
import type { Runner } from "./db.js"
import { placeholders } from "../sql/rows.js"

export const makeReactionsRepo = (run: Runner): ReactionsRepo => ({
  byId: (id) => run.read((_, s) => s(`SELECT * FROM reactions WHERE id = ?`).get(id) as Reaction | undefined),
  ofTopic: (topicId) => run.read((_, s) => s(`SELECT * FROM reactions WHERE topic_id = ? ORDER BY id`).all(topicId) as Array<Reaction>),
  ofReactables: (type, ids) =>
    ids.length === 0
      ? run.read(() => [])
      : run.read((_, s) =>
        s(`SELECT * FROM reactions WHERE reactable_type = ? AND reactable_id IN (${placeholders(ids.length)}) ORDER BY id`)
          .all(type, ...ids) as Array<Reaction>),
  find: (r) =>
    run.read((_, s) =>
      s(`SELECT * FROM reactions WHERE reactable_type = ? AND reactable_id = ? AND user_id = ? AND reaction = ?`)
        .get(r.reactable_type, r.reactable_id, r.user_id, r.reaction) as Reaction | undefined),
  insert: (r) =>
    run.write((_, s) => {
      const info = s(
        `INSERT INTO reactions (topic_id, reactable_type, reactable_id, user_id, reaction, created_at)
         VALUES (@topic_id, @reactable_type, @reactable_id, @user_id, @reaction, @created_at)`
      ).run(r)
      return { ...r, id: Number(info.lastInsertRowid) }
    }),
  delete: (id) => run.write((_, s) => void s(`DELETE FROM reactions WHERE id = ?`).run(id))
})
