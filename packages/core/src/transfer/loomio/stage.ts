/**
 * The first pass of `convene import loomio`: every line of the file read, checked against its table's
 * declaration (domain/loomio.ts) and staged in a temporary table, so that the second pass may read any table
 * in any order without holding the file; and the errors that name a line.
 */
import { createReadStream, statSync } from "node:fs"
import { createInterface } from "node:readline"
import { Either, ParseResult, Schema } from "effect"
import { LOOMIO_SKIPPED_TABLES, LOOMIO_TABLES, LoomioLine, type LoomioRecord, type LoomioTable } from "../../domain/loomio.js"
import type { AttachableType } from "../../domain/files.js"
import type { Db } from "../../sqlite/db.js"
import { columnValue } from "../../domain/model.js"

/** A line that cannot be imported: the whole import stops, naming it. */
export class ImportError extends Error {
  override readonly name = "ImportError"
  constructor(message: string, readonly line?: number, readonly table?: string) {
    super(line === undefined ? message : `line ${line}${table === undefined ? "" : ` (${table})`}: ${message}`)
  }
}

export interface ImportProgress {
  readonly phase: "reading" | "writing"
  readonly done: number
  readonly total: number
}

export interface ImportOptions {
  readonly dryRun?: boolean
  readonly onProgress?: (p: ImportProgress) => void
  /** the import's clock (created_at of records that lack one, reminders already due) */
  readonly now?: Date
}

export interface ImportResult {
  readonly dry_run: boolean
  /** the top group created (its subgroups follow it) */
  readonly group: { readonly id: number; readonly key: string; readonly name: string } | null
  /** records written, by convene table */
  readonly imported: Record<string, number>
  /** lines of tables convene has no place for, by table */
  readonly skipped: Record<string, number>
  /** people of the file who already had an account here (matched by e-mail) */
  readonly users_matched: number
  /** who-did-it references (inviter, revoker, discarder, closer) to people not in the file, left empty */
  readonly references_dropped: number
  readonly warnings: ReadonlyArray<string>
  /** with a files directory: the files attached, and those the directory lacks (named by line and filename) */
  readonly files?: { readonly attached: number; readonly missing: ReadonlyArray<string> }
}

/**
 * A file the export names on a record the import wrote (decisions §14): the record and its author by their new
 * ids, and what finds the bytes in the files directory. The rows commit first; the files follow (transfer/files.ts).
 */
export interface ImportedFile {
  readonly line: number
  readonly record_type: AttachableType
  readonly record_id: number
  readonly uploader_id: number
  readonly filename: string
  readonly key: string | null
  readonly path: string | null
}

/** The rows' import, and the files it leaves to attach. */
export interface StagedImport extends ImportResult {
  readonly attachments: ReadonlyArray<ImportedFile>
}

const SKIPPED = new Set<string>(LOOMIO_SKIPPED_TABLES)

/** The `path message` of a record's first problem. */
const firstProblem = (error: ParseResult.ParseError): string => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  if (issue === undefined) return "is not valid"
  const path = issue.path.join(".")
  const message = issue.message.startsWith("Expected") ? issue.message.replace(/, actual .*/s, "") : issue.message
  return path === "" ? message : `${path}: ${message}`
}

const decoders = Object.fromEntries(
  Object.entries(LOOMIO_TABLES).map(([t, s]) => [t, Schema.decodeUnknownEither(s as Schema.Schema<unknown, unknown>)])
) as Record<LoomioTable, (u: unknown) => Either.Either<unknown, ParseResult.ParseError>>
const decodeLine = Schema.decodeUnknownEither(LoomioLine)

/** First pass: every line read, checked and staged; nothing of the database is touched but the temp table. */
export const stage = async (db: Db, file: string, onProgress: ImportOptions["onProgress"]) => {
  const size = statSync(file).size
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS import_lines (
    n INTEGER PRIMARY KEY, tbl TEXT NOT NULL, old_id INTEGER, record TEXT NOT NULL)`)
  db.exec(`DELETE FROM temp.import_lines`)
  db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS temp.import_lines_ids ON import_lines (tbl, old_id)`)
  db.exec(`CREATE INDEX IF NOT EXISTS temp.import_lines_order ON import_lines (tbl, n)`)
  const insert = db.prepare(`INSERT INTO temp.import_lines (n, tbl, old_id, record) VALUES (?, ?, ?, ?)`)
  const firstOf = db.prepare(`SELECT n FROM temp.import_lines WHERE tbl = ? AND old_id = ?`)
  const skipped: Record<string, number> = {}
  let n = 0
  let bytes = 0
  let batch: Array<[number, string, number | null, string]> = []
  const flush = db.transaction(() => {
    for (const row of batch) {
      try {
        insert.run(...row)
      } catch (e) {
        const first = (firstOf.get(row[1], row[2]) as { n: number } | undefined)?.n
        if (first !== undefined) throw new ImportError(`duplicate id ${row[2]} (first on line ${first})`, row[0], row[1])
        throw e
      }
    }
  })
  const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity })
  for await (const text of lines) {
    n++
    bytes += Buffer.byteLength(text) + 1
    if (text.trim() === "") continue
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new ImportError(`is not JSON (a Loomio export has one {"table", "record"} object per line)`, n)
    }
    const envelope = decodeLine(json)
    if (Either.isLeft(envelope)) throw new ImportError(`is not a {"table": …, "record": {…}} object`, n)
    const { record, table } = envelope.right
    if (SKIPPED.has(table)) {
      skipped[table] = (skipped[table] ?? 0) + 1
      continue
    }
    if (!(table in LOOMIO_TABLES)) {
      throw new ImportError(`unknown table "${table.slice(0, 64)}" (convene reads ${Object.keys(LOOMIO_TABLES).join(", ")})`, n)
    }
    if (record.id === undefined && table !== "stance_choices") throw new ImportError("the record has no id", n, table)
    const decoded = decoders[table as LoomioTable](record)
    if (Either.isLeft(decoded)) throw new ImportError(firstProblem(decoded.left), n, table)
    const id = (decoded.right as { id: number | null }).id
    batch.push([n, table, id, JSON.stringify(decoded.right)])
    if (batch.length === 5000) {
      flush()
      batch = []
      onProgress?.({ phase: "reading", done: bytes, total: size })
    }
  }
  flush()
  onProgress?.({ phase: "reading", done: size, total: size })
  return { skipped, lines: n }
}

export interface Staged<T extends LoomioTable> {
  readonly line: number
  readonly record: LoomioRecord<T>
}

/**
 * The staged records of a table (or two that mean the same), in file order, a page at a time: the connection
 * writes between pages (an open iterator would hold it), and the file is never held whole.
 */
export function* staged<T extends LoomioTable>(db: Db, ...tables: ReadonlyArray<T>): Generator<Staged<T>> {
  const page = db.prepare(
    `SELECT n, record FROM temp.import_lines WHERE tbl IN (${tables.map(() => "?").join(",")}) AND n > ? ORDER BY n LIMIT 2000`
  )
  let after = 0
  for (;;) {
    const rows = page.all(...tables, after) as Array<{ n: number; record: string }>
    if (rows.length === 0) return
    for (const row of rows) yield { line: row.n, record: JSON.parse(row.record) as LoomioRecord<T> }
    after = rows[rows.length - 1]!.n
  }
}

export const oldIds = (db: Db, ...tables: ReadonlyArray<LoomioTable>): Array<number> =>
  db.prepare(`SELECT old_id FROM temp.import_lines WHERE tbl IN (${tables.map(() => "?").join(",")}) ORDER BY n`).pluck().all(...tables) as Array<number>

/** An INSERT per column set, prepared once. */
export const inserter = (db: Db) => {
  const cache = new Map<string, ReturnType<Db["prepare"]>>()
  return (table: string, row: Record<string, unknown>, at: { line: number; table: string }, orIgnore = false) => {
    const cols = Object.keys(row)
    const sql = `INSERT ${orIgnore ? "OR IGNORE " : ""}INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((c) => "@" + c).join(", ")})`
    let stmt = cache.get(sql)
    if (stmt === undefined) cache.set(sql, stmt = db.prepare(sql))
    const values: Record<string, unknown> = {}
    for (const c of cols) {
      const v = row[c]
      values[c] = columnValue(v)
    }
    try {
      return stmt.run(values).changes
    } catch (e) {
      throw new ImportError((e as Error).message.replace(/^UNIQUE constraint failed: /, "duplicate of a record already written: "), at.line, at.table)
    }
  }
}
