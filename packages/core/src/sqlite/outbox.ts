import type { OutboxOps } from "../ports/outbox.js"
import type { Runner } from "./db.js"

/** The queries the webhook and mail outboxes share (the same columns: status, next_attempt_at, claimed_until). */
export const outboxOps = (run: Runner, table: "webhook_deliveries" | "mail_outbox"): OutboxOps => ({
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
  backlog: () =>
    run.read((_, s) => {
      const row = s(`SELECT count(*) FILTER (WHERE status IN ('pending', 'failed')) AS waiting, count(*) FILTER (WHERE status = 'dead') AS dead,
                            min(created_at) FILTER (WHERE status IN ('pending', 'failed')) AS oldest FROM ${table}`)
        .get() as { waiting: number; dead: number; oldest: string | null }
      return { waiting: row.waiting, dead: row.dead, oldest_waiting_at: row.oldest }
    })
})
