import type { OutboxBacklog } from "../ports/outbox.js"
import type { Db } from "./db.js"
import { outboxBacklogSql, toBacklog } from "../sql/records.js"

/** What waits in one outbox, read on any connection (`doctor` reads a database it does not migrate). */
export const backlogOf = (db: Db, table: "webhook_deliveries" | "mail_outbox"): OutboxBacklog =>
  toBacklog(db.prepare(outboxBacklogSql(table)).get() as { waiting: number; dead: number; oldest: string | null })
