import type { ThreadItem } from "../domain/records.js"
import type { ItemsRepo } from "../ports/store.js"
import type { Runner } from "./db.js"
import { positionSegment } from "../sql/records.js"

const maybe = (row: unknown) => row as ThreadItem | undefined

export const makeItemsRepo = (run: Runner): ItemsRepo => ({
  ofTopic: (topicId) =>
    run.read((_, s) => s(`SELECT * FROM topic_items WHERE topic_id = ? ORDER BY sequence_id`).all(topicId) as Array<ThreadItem>),
  byId: (id) => run.read((_, s) => maybe(s(`SELECT * FROM topic_items WHERE id = ?`).get(id))),
  byItemable: (type, id) =>
    run.read((_, s) => maybe(s(`SELECT * FROM topic_items WHERE itemable_type = ? AND itemable_id = ? ORDER BY id LIMIT 1`).get(type, id))),
  append: ({ parent, root, ...item }) =>
    run.write((_, s) => {
      const sequence_id = root
        ? 0
        : (s(`SELECT coalesce(max(sequence_id), 0) + 1 AS n FROM topic_items WHERE topic_id = ?`).get(item.topic_id) as { n: number }).n
      let position = 0
      let position_key: string | null = null
      if (parent !== null) {
        position = (s(`UPDATE topic_items SET child_count = child_count + 1 WHERE id = ? RETURNING child_count`).get(parent.id) as {
          child_count: number
        }).child_count
        position_key = parent.position_key === null ? positionSegment(position) : `${parent.position_key}-${positionSegment(position)}`
      }
      const info = s(
        `INSERT INTO topic_items (topic_id, kind, sequence_id, parent_id, depth, position, position_key, itemable_type, itemable_id, actor_id, created_at)
         VALUES (@topic_id, @kind, @sequence_id, @parent_id, @depth, @position, @position_key, @itemable_type, @itemable_id, @actor_id, @created_at)`
      ).run({
        ...item,
        sequence_id,
        parent_id: parent?.id ?? null,
        depth: parent === null ? 0 : parent.depth + 1,
        position,
        position_key
      })
      s(`UPDATE topics SET items_count = items_count + 1 WHERE id = ?`).run(item.topic_id)
      return s(`SELECT * FROM topic_items WHERE id = ?`).get(info.lastInsertRowid) as ThreadItem
    })
})
