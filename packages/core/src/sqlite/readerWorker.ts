/**
 * The reader thread of sqlite/offload.ts: a read-only connection that runs the report and search queries
 * it is sent, by table and name, and answers with their results (or the error's message).
 */
import Database from "better-sqlite3"
import { parentPort, workerData } from "node:worker_threads"
import { type Stmt, statementCache } from "./db.js"
import { REPORT_QUERIES } from "./reports.js"
import { SEARCH_QUERIES } from "./search.js"

const TABLES: Record<string, Record<string, (s: Stmt, ...args: Array<any>) => unknown>> = {
  reports: REPORT_QUERIES,
  search: SEARCH_QUERIES
}

const db = new Database((workerData as { filename: string }).filename, { readonly: true, fileMustExist: true })
db.pragma("busy_timeout = 5000")
const stmt = statementCache(db)

parentPort!.on("message", ({ id, table, name, args }: { id: number; table: string; name: string; args: Array<unknown> }) => {
  try {
    const query = TABLES[table]?.[name]
    if (query === undefined) throw new Error(`no query ${table}.${name}`)
    parentPort!.postMessage({ id, result: query(stmt, ...args) })
  } catch (e) {
    parentPort!.postMessage({ id, error: (e as Error).message })
  }
})
