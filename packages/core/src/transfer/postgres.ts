/**
 * `convene import loomio FILE` into a PostgreSQL database, and `convene export` out of one. Every check, every error naming a line and every
 * derived column are the SQLite importer's (transfer/loomio/import.ts), run into an empty file of its own; the
 * rows it wrote are then copied into the database in one transaction that keeps other writers out of its tables, each id moved past
 * the database's own and every reference moved with it. People are matched by e-mail against the database, as
 * the SQLite importer matches them against its file. The triggers count groups, polls and options and index
 * the documents as for any write, so the copied counters start at zero. All of it, or nothing.
 */
import Database from "better-sqlite3"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type pg from "pg"
import { ATTACHABLE_TABLES } from "../domain/files.js"
import { newRecordKey } from "../rules/keys.js"
import { migrate, openFile } from "../sqlite/db.js"
import { ExportError, exportGroup, type StagedExport } from "./loomio/export.js"
import { ImportError, type ImportOptions, importLoomioExport, type StagedImport } from "./loomio/import.js"
import { connectTo, makePool, migratePg, PgDatabaseError } from "../postgres/db.js"
import { insertRows, settleIds } from "./pgWrite.js"

/** What a column refers to: a table, or (polymorphic) a table by the row's type column. */
type Ref = string | { readonly by: string; readonly tables: Readonly<Record<string, string>> }
const ITEMABLE = { by: "itemable_type", tables: { Discussion: "discussions", Comment: "comments", Poll: "polls", Stance: "stances", Outcome: "outcomes" } }

/** The tables the import writes, in an order where every trigger finds what it counts, and their references. */
const TABLES: ReadonlyArray<readonly [string, Readonly<Record<string, Ref>>]> = [
  ["users", { deactivator_id: "users" }],
  ["groups", { parent_id: "groups", creator_id: "users" }],
  ["memberships", { group_id: "groups", user_id: "users", inviter_id: "users", revoker_id: "users" }],
  ["poll_templates", { group_id: "groups", author_id: "users" }],
  ["topics", { group_id: "groups", closer_id: "users", topicable_id: { by: "topicable_type", tables: { Discussion: "discussions", Poll: "polls" } } }],
  ["discussions", { topic_id: "topics", author_id: "users", discarded_by: "users" }],
  ["comments", { discussion_id: "discussions", parent_id: "comments", author_id: "users", discarded_by: "users" }],
  ["polls", { topic_id: "topics", author_id: "users", discarded_by: "users", poll_template_id: "poll_templates" }],
  ["poll_options", { poll_id: "polls" }],
  ["stances", { poll_id: "polls", participant_id: "users", inviter_id: "users", revoker_id: "users" }],
  ["stance_choices", { stance_id: "stances", poll_option_id: "poll_options" }],
  ["outcomes", { poll_id: "polls", author_id: "users", poll_option_id: "poll_options" }],
  ["reactions", { topic_id: "topics", user_id: "users", reactable_id: { by: "reactable_type", tables: ITEMABLE.tables } }],
  ["topic_items", { topic_id: "topics", parent_id: "topic_items", actor_id: "users", itemable_id: ITEMABLE }],
  ["topic_readers", { topic_id: "topics", user_id: "users", inviter_id: "users" }],
  ["imports", { group_id: "groups" }]
]

/** Counters the triggers keep: copied as zero, counted again as the rows they count arrive. */
export const COUNTED: Readonly<Record<string, ReadonlyArray<string>>> = {
  groups: ["memberships_count", "accepted_memberships_count", "pending_memberships_count", "admin_memberships_count", "delegates_count",
    "discussions_count", "polls_count", "subgroups_count"],
  polls: ["voters_count", "cast_count"],
  topics: ["seen_by_count"],
  poll_options: ["total_score", "voter_count", "yes_count", "maybe_count", "no_count"],
  stance_choices: ["counted"]
}

/** Runs `body` with the database (migrated, one connection) and a temporary SQLite file beside it, both gone after. */
const withStagingFile = async <A>(url: string, body: (pool: pg.Pool, stagedFile: string) => Promise<A>): Promise<A> => {
  const dir = mkdtempSync(join(tmpdir(), "convene-staging-"))
  const pool = makePool(url, 1)
  try {
    await migratePg(pool, url)
    return await body(pool, join(dir, "staged.db"))
  } finally {
    await pool.end().catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  }
}

export const importLoomioExportToPg = (url: string, file: string, options: ImportOptions = {}): Promise<StagedImport> =>
  withStagingFile(url, async (pool, stagedFile) => {
    const result = await importLoomioExport(stagedFile, file, { ...options, dryRun: false })
    const staged = new Database(stagedFile, { readonly: true })
    const client = await connectTo(pool, url)
    try {
      // ids are given past each table's highest: no other writer may insert into these tables meanwhile (readers may)
      await client.query(`BEGIN; LOCK TABLE ${TABLES.map(([t]) => t).join(", ")} IN EXCLUSIVE MODE; SET CONSTRAINTS ALL DEFERRED`)
      const copied = await copyInto(client, staged, result)
      await client.query(options.dryRun === true ? "ROLLBACK" : "COMMIT")
      return { ...copied, dry_run: options.dryRun === true }
    } catch (e) {
      await client.query("ROLLBACK").catch(() => undefined)
      if (e instanceof ImportError || e instanceof PgDatabaseError) throw e
      throw new ImportError((e as Error).message)
    } finally {
      client.release()
      staged.close()
    }
  })

const copyInto = async (client: pg.PoolClient, staged: Database.Database, result: StagedImport): Promise<StagedImport> => {
  const one = async <T>(sql: string, values: Array<unknown> = []) => (await client.query(sql, values)).rows[0] as T | undefined
  // refused as the SQLite importer refuses: this export imported before, or one of its groups already here
  for (const row of staged.prepare(`SELECT source_group_key FROM imports`).all() as Array<{ source_group_key: string }>) {
    const before = await one<{ group_id: number | null; created_at: string }>(`SELECT group_id, created_at FROM imports WHERE source_group_key = $1`, [row.source_group_key])
    if (before !== undefined) {
      throw new ImportError(`this export was imported already on ${before.created_at}` + (before.group_id === null ? "" : ` (group ${before.group_id})`) +
        `: importing it again is refused`)
    }
  }
  for (const g of staged.prepare(`SELECT key FROM groups`).all() as Array<{ key: string }>) {
    const held = await one<{ id: number }>(`SELECT id FROM groups WHERE key = $1`, [g.key])
    if (held !== undefined) throw new ImportError(`this database already holds group ${g.key} (id ${held.id}): importing it again is refused`)
  }

  // every id past the database's own
  const offset = new Map<string, number>()
  for (const [table] of TABLES) {
    if (table !== "stance_choices") offset.set(table, (await one<{ n: number }>(`SELECT coalesce(max(id), 0) AS n FROM ${table}`))!.n)
  }
  // people matched by e-mail keep their id; the others take the next ones in turn, as the SQLite importer gives them
  const people = new Map<number, number>()
  let nextPerson = offset.get("users")!
  const warnings = [...result.warnings]
  let matched = 0
  const skipUsers = new Set<number>()
  for (const u of staged.prepare(`SELECT id, email FROM users ORDER BY id`).all() as Array<{ id: number; email: string | null }>) {
    const existing = u.email === null ? undefined : await one<{ id: string }>(`SELECT id FROM users WHERE email = $1`, [u.email])
    if (existing !== undefined) {
      people.set(u.id, Number(existing.id))
      skipUsers.add(u.id)
      matched++
    } else people.set(u.id, ++nextPerson)
  }
  const idOf = (table: string, id: number | null) =>
    id === null ? null : table === "users" ? (people.get(id) ?? null) : id + offset.get(table)!
  const depth = groupDepths(staged)

  for (const [table, refs] of TABLES) {
    let rows = staged.prepare(`SELECT * FROM ${table}${table === "stance_choices" ? "" : " ORDER BY id"}`).all() as Array<Record<string, unknown>>
    // a parent group before its subgroups: the subgroup counter finds its parent
    if (table === "groups") rows = rows.sort((a, b) => depth.get(a.id as number)! - depth.get(b.id as number)!)
    const written: Array<Record<string, unknown>> = []
    for (const source of rows) {
      if (table === "users" && skipUsers.has(source.id as number)) continue
      const row: Record<string, unknown> = { ...source }
      if ("id" in row) row.id = idOf(table, row.id as number)
      for (const [column, ref] of Object.entries(refs)) {
        const target = typeof ref === "string" ? ref : ref.tables[String(row[ref.by])]
        if (target !== undefined) row[column] = idOf(target, row[column] as number | null)
      }
      for (const column of COUNTED[table] ?? []) row[column] = 0
      await unique(client, table, row, warnings)
      // what this database received (people matched by e-mail are not among the users written)
      if (table === "imports") row.counts = JSON.stringify({ ...result.imported, users: (result.imported.users ?? 0) - matched })
      written.push(row)
    }
    const columns = written.length === 0 ? [] : Object.keys(written[0]!)
    await insertRows(client, table, columns, written.map((row) => columns.map((c) => row[c])))
  }
  // the identity columns go on from past the imported ids
  await settleIds(client, TABLES.map(([table]) => table).filter((table) => table !== "stance_choices"))
  const group = result.group === null ? null : { ...result.group, id: idOf("groups", result.group.id)! }
  // the staged file's counts are the file's records (an item the import derives is not one); its people were all new
  const counts = { ...result.imported, users: (result.imported.users ?? 0) - matched }
  // the files to attach, on their records' and authors' ids here
  const attachments = result.attachments.map((a) => ({
    ...a, record_id: idOf(ATTACHABLE_TABLES[a.record_type], a.record_id)!, uploader_id: idOf("users", a.uploader_id)!
  }))
  return { ...result, group, imported: counts, users_matched: matched, warnings, attachments }
}

/** A unique value of a row already held by the database: a username or handle is left empty (said), a key drawn anew. */
const unique = async (client: pg.PoolClient, table: string, row: Record<string, unknown>, warnings: Array<string>) => {
  const taken = async (column: string) =>
    row[column] !== null && row[column] !== undefined && (await client.query(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [row[column]])).rowCount! > 0
  if (table === "users" && (await taken("username"))) {
    warnings.push(`the username ${String(row.username)} is taken here; imported without one`)
    row.username = null
  }
  if (table === "groups" && (await taken("handle"))) {
    warnings.push(`the group handle ${String(row.handle)} is taken here; imported without one`)
    row.handle = null
  }
  if ((table === "discussions" || table === "polls") && (await taken("key"))) row.key = newRecordKey()
}

/** Each staged group's depth below its top group. */
const groupDepths = (staged: Database.Database) => {
  const parents = new Map((staged.prepare(`SELECT id, parent_id FROM groups`).all() as Array<{ id: number; parent_id: number | null }>).map((g) => [g.id, g.parent_id]))
  const depth = new Map<number, number>()
  const of = (id: number, seen: number): number => {
    const parent = parents.get(id)
    return parent === null || parent === undefined || seen > parents.size ? 0 : 1 + of(parent, seen + 1)
  }
  for (const id of parents.keys()) depth.set(id, of(id, 0))
  return depth
}

/**
 * A group's export from a PostgreSQL database: its rows, read in one snapshot, copied into a temporary SQLite
 * file with their ids, and exported from there by the one exporter (transfer/loomio/export.ts), so the file is
 * the same as a SQLite install holding the same rows would write. The whole content is copied: simple, and as
 * slow as the database is large.
 */
export const exportGroupFromPg = async (url: string, ref: string, to: string): Promise<StagedExport> => {
  if (existsSync(to)) throw new ExportError(`${to} exists: choose a new file`)
  return withStagingFile(url, async (pool, stagedFile) => {
    const staged = openFile(stagedFile, false)
    try {
      migrate(staged)
      // the rows arrive in any order; the counters come with them (triggers would count them twice)
      staged.pragma("foreign_keys = OFF")
      const client = await connectTo(pool, url)
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        staged.exec("BEGIN")
        const copied = new Map<string, Array<Record<string, unknown>>>()
        // with its files' rows (the bytes stay where they live)
        for (const table of [...TABLES.map(([t]) => t), "blobs", "attachments"]) {
          if (table === "imports") continue
          const rows = (await client.query(`SELECT * FROM ${table}`)).rows as Array<Record<string, unknown>>
          copied.set(table, rows)
          if (rows.length === 0) continue
          const columns = Object.keys(rows[0]!)
          const insert = staged.prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
          for (const row of rows) insert.run(...columns.map((c) => row[c]))
        }
        // the insert triggers counted every row again: the counters are put back as the database holds them
        for (const [table, columns] of Object.entries(COUNTED)) {
          const key = table === "stance_choices" ? "stance_id = ? AND poll_option_id = ?" : "id = ?"
          const update = staged.prepare(`UPDATE ${table} SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE ${key}`)
          for (const row of copied.get(table) ?? []) {
            update.run(...columns.map((c) => row[c]), ...(table === "stance_choices" ? [row.stance_id, row.poll_option_id] : [row.id]))
          }
        }
        staged.exec("COMMIT")
      } finally {
        await client.query("ROLLBACK").catch(() => undefined)
        client.release()
      }
    } finally {
      staged.close()
    }
    return await exportGroup(stagedFile, ref, to)
  })
}
