import type { OutboxBacklog } from "./outbox.js"

/** What `doctor` reads of a database without changing it. */
export interface DatabaseReport {
  readonly path: string
  readonly schema_version: number
  /** the newest version this convene knows; a smaller schema_version is migrated by the next `serve` */
  readonly known_version: number
  /** "ok", or what integrity_check found */
  readonly integrity: string
  /** a PostgreSQL database (its server checks its own pages: no integrity_check to run) */
  readonly store?: "postgres"
  /** undefined when the schema is too old to have both outboxes */
  readonly outboxes: { readonly webhook: OutboxBacklog; readonly mail: OutboxBacklog } | undefined
}
