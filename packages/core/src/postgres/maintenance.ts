/** `doctor` on a PostgreSQL database: reads without migrating or writing (sqlite/maintenance.ts for a file). */
import type { DatabaseReport } from "../ports/outbox.js"
import { describeUrl, makePool, PgDatabaseError } from "./db.js"
import { migrations } from "./migrations/index.js"
import { backlogSql } from "./outboxes.js"

/** The schema version, and the outboxes once the schema has them; the server checks its pages itself. */
export const inspectPgDatabase = async (url: string): Promise<DatabaseReport> => {
  const pool = makePool(url, 1)
  pool.on("error", () => undefined)
  try {
    const where = describeUrl(url)
    let version: number
    try {
      const found = await pool.query<{ version: number }>(
        `SELECT version FROM convene_schema WHERE to_regclass('convene_schema') IS NOT NULL UNION ALL SELECT 0 LIMIT 1`
      )
      version = found.rows[0]?.version ?? 0
    } catch (e) {
      // convene_schema missing: a database convene never prepared
      if ((e as { code?: string }).code === "42P01") version = 0
      else throw new PgDatabaseError(`cannot connect to the database at ${where}: ${(e as Error).message}`)
    }
    const current = version >= 1 && version <= migrations.length
    const backlog = async (table: "webhook_deliveries" | "mail_outbox") => {
      const r = (await pool.query<{ waiting: number; dead: number; oldest: string | null }>(backlogSql(table))).rows[0]!
      return { waiting: Number(r.waiting), dead: Number(r.dead), oldest_waiting_at: r.oldest }
    }
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
