/** PostgreSQL's words for what the repositories (store/) ask in each engine's own. */
import type { Dialect } from "../store/client.js"
import type { IdList } from "../sql/scope.js"

/** Id lists as one array parameter, typed so the planner knows what it compares. */
export const PG_IDS: IdList = { has: (column, param, of = "id") => `${column} = ANY(@${param}::${of === "id" ? "bigint" : "text"}[])`, bind: (list) => [...list] }

export const PG_DIALECT: Dialect = {
  ids: PG_IDS,
  // servers sharing the database each claim different due rows, never waiting for one another's claims
  skipLocked: "FOR UPDATE SKIP LOCKED",
  eventKindIn: (column, param) => `${column} @> jsonb_build_array(@${param}::text)`,
  greater: (a, b) => `GREATEST(${a}, ${b})`,
  lateral: true,
  ballotsOf: (polls, user) => `poll_id = ANY(@${polls}::bigint[]) AND participant_id = @${user} AND latest = TRUE AND revoked_at IS NULL`,
  tagged: "t.tags @> jsonb_build_array(@tag::text)"
}
