/**
 * What the import derives in bulk rather than row by row: thread positions from the tree of items, and the
 * search index of the imported documents.
 */
import { ImportError } from "./stage.js"
import type { Db } from "../../sqlite/db.js"

/**
 * The search vocabulary (migration 011) is kept by a trigger per document that scans the transaction's pending
 * terms: cheap for one request, quadratic for an import's 150,000 documents (104 µs a ballot and rising). The
 * import drops that trigger inside its own transaction (SQLite's DDL is transactional: no other connection ever
 * sees it missing), indexes its documents in three statements, and puts the trigger back as it was.
 */
export const searchInBulk = (db: Db) => {
  const trigger = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'search_documents_index'`).pluck().get() as
    | string
    | undefined
  const before = (db.prepare(`SELECT coalesce(max(id), 0) AS n FROM search_documents`).get() as { n: number }).n
  if (trigger !== undefined) db.exec(`DROP TRIGGER search_documents_index`)
  return () => {
    if (trigger === undefined) return
    db.prepare(`INSERT INTO search_fts (rowid, content) SELECT id, content FROM search_documents WHERE id > ?`).run(before)
    db.prepare(`INSERT INTO search_tokenizer (rowid, content) SELECT id, content FROM search_documents WHERE id > ?`).run(before)
    db.exec(`INSERT OR IGNORE INTO search_words (word) SELECT term FROM search_tokens WHERE length(term) BETWEEN 4 AND 64`)
    db.exec(`DELETE FROM search_tokenizer`)
    db.exec(trigger)
  }
}

/**
 * Depth, position, position key and child count of every item of the imported threads, from their tree; a
 * thread whose file had no first item gets one, and items without a parent hang from it, as in convene.
 */
export const deriveThreads = (db: Db, topicsBefore: number) => {
  db.prepare(`INSERT INTO topic_items (topic_id, kind, sequence_id, parent_id, itemable_type, itemable_id, actor_id, created_at)
    SELECT t.id, CASE t.topicable_type WHEN 'Discussion' THEN 'new_discussion' ELSE 'poll_created' END, 0, NULL,
           t.topicable_type, t.topicable_id,
           CASE t.topicable_type WHEN 'Discussion' THEN (SELECT author_id FROM discussions WHERE id = t.topicable_id)
                                 ELSE (SELECT author_id FROM polls WHERE id = t.topicable_id) END,
           t.created_at
    FROM topics t
    WHERE t.id > ? AND t.topicable_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM topic_items i WHERE i.topic_id = t.id AND i.sequence_id = 0)`).run(topicsBefore)
  db.prepare(`UPDATE topic_items SET parent_id = (SELECT r.id FROM topic_items r WHERE r.topic_id = topic_items.topic_id AND r.sequence_id = 0)
    WHERE topic_id > ? AND parent_id IS NULL AND sequence_id <> 0`).run(topicsBefore)
  // in JS, not in SQL: a recursive CTE joined back for the UPDATE made this quadratic (2 s for 5,000 items)
  const items = db.prepare(`SELECT id, parent_id, sequence_id FROM topic_items WHERE topic_id > ? ORDER BY topic_id, sequence_id`)
    .all(topicsBefore) as Array<{ id: number; parent_id: number | null; sequence_id: number }>
  const byId = new Map(items.map((i) => [i.id, { ...i, position: 0, children: 0, depth: -1, key: null as string | null }]))
  for (const item of byId.values()) {
    const parent = item.parent_id === null ? undefined : byId.get(item.parent_id)
    if (parent !== undefined) item.position = ++parent.children
  }
  const place = (item: NonNullable<ReturnType<typeof byId.get>>): void => {
    if (item.depth >= 0) return
    if (item.depth === -2) throw new ImportError("the events' parent_id values form a cycle")
    const parent = item.parent_id === null ? undefined : byId.get(item.parent_id)
    if (parent === undefined) {
      item.depth = 0
      return
    }
    item.depth = -2
    place(parent)
    item.depth = parent.depth + 1
    const segment = String(item.position).padStart(5, "0")
    item.key = parent.key === null ? segment : `${parent.key}-${segment}`
  }
  const update = db.prepare(`UPDATE topic_items SET depth = ?, position = ?, position_key = ?, child_count = ? WHERE id = ?`)
  for (const item of byId.values()) {
    place(item)
    update.run(item.depth, item.position, item.key, item.children, item.id)
  }
  db.prepare(`UPDATE topics SET items_count = (SELECT count(*) FROM topic_items i WHERE i.topic_id = topics.id) WHERE id > ?`).run(topicsBefore)
}
