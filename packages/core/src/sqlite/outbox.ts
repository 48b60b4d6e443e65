import type { OutboxBacklog, OutboxOps } from "../ports/outbox.js"
import type { Db, Runner } from "./db.js"
import { outboxBacklogSql, toBacklog } from "../sql/records.js"

export type OutboxTable = "webhook_deliveries" | "mail_outbox"

/** What waits in one outbox, read on any connection (`doctor` reads a database it does not migrate). */
export const backlogOf = (db: Db, table: OutboxTable): OutboxBacklog =>
  toBacklog(db.prepare(outboxBacklogSql(table)).get() as { waiting: number; dead: number; oldest: string | null })

/** The queries the webhook and mail outboxes share (the same columns: status, next_attempt_at, claimed_until). */
export const outboxOps = (run: Runner, table: OutboxTable): OutboxOps => ({
  retry: (ids, now) =>
    run.write((_, s) =>
      ids === undefined
        ? s(`UPDATE ${table} SET status = 'failed', next_attempt_at = ?, claimed_until = NULL WHERE status = 'dead'`).run(now).changes
        : s(`UPDATE ${table} SET status = 'failed', next_attempt_at = ?, claimed_until = NULL
             WHERE status IN ('failed', 'dead') AND id IN (SELECT value FROM json_each(?))`).run(now, JSON.stringify(ids)).changes),
  nextDueAt: () =>
    run.read((_, s) =>
      (s(`SELECT min(max(next_attempt_at, coalesce(claimed_until, ''))) AS at FROM ${table} WHERE status IN ('pending', 'failed')`)
        .get() as { at: string | null }).at ?? undefined),
  backlog: () => run.read((db) => backlogOf(db, table))
})
