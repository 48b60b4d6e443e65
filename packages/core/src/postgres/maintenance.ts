/** `doctor` on a PostgreSQL database: reads without migrating or writing (sqlite/maintenance.ts for a file). */
import type { DatabaseReport } from "../ports/database.js"
import { describeUrl, makePool, PgDatabaseError } from "./db.js"
import { migrations } from "./migrations/index.js"
import { outboxBacklogSql, toBacklog } from "../sql/records.js"

/** The schema version, and the outboxes once the schema has them; the server checks its pages itself. */
export const inspectPgDatabase = async (url: string): Promise<DatabaseReport> => {
  const pool = makePool(url, 1)
  try {
    const where = describeUrl(url)
    let version: number
    try {
      version = (await pool.query<{ version: number }>(`SELECT version FROM convene_schema`)).rows[0]?.version ?? 0
    } catch (e) {
      // convene_schema missing: a database convene never prepared
      if ((e as { code?: string }).code === "42P01") version = 0
      else throw new PgDatabaseError(`cannot connect to the database at ${where}: ${(e as Error).message}`)
    }
    const current = version >= 1 && version <= migrations.length
    const backlog = async (table: "webhook_deliveries" | "mail_outbox") =>
      toBacklog((await pool.query<{ waiting: number; dead: number; oldest: string | null }>(outboxBacklogSql(table))).rows[0]!)
    return {
      path: where,
      schema_version: version,
      known_version: migrations.length,
      integrity: "ok",
      store: "postgres",
      outboxes: current ? { webhook: await backlog("webhook_deliveries"), mail: await backlog("mail_outbox") } : undefined
    }
  } finally {
    await pool.end().catch(() => undefined)
  }
}
