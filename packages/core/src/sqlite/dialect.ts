/** SQLite's words for what the repositories (store/) ask in each engine's own. */
import type { Dialect } from "../store/client.js"
import type { IdList } from "../sql/scope.js"

/** Id lists as JSON arrays read by json_each: one statement text whatever the list's length. */
export const SQLITE_IDS: IdList = { has: (column, param) => `${column} IN (SELECT value FROM json_each(@${param}))`, bind: (ids) => JSON.stringify(ids) }

export const SQLITE_DIALECT: Dialect = {
  ids: SQLITE_IDS,
  // one writer at a time: nothing to skip
  skipLocked: "",
  eventKindIn: (column, param) => `EXISTS (SELECT 1 FROM json_each(${column}) WHERE value = @${param})`,
  greater: (a, b) => `max(${a}, ${b})`,
  lateral: false,
  // poll by poll through the (poll, participant) index: asked as one IN list, SQLite would scan every ballot the
  // person holds in any poll (bench/growth.js: a poll's document 0.65 as fast at ten times the ballots)
  ballotsOf: (polls, user) =>
    `id IN (SELECT s.id FROM json_each(@${polls}) j CROSS JOIN stances s ON s.poll_id = j.value
            WHERE s.participant_id = @${user} AND s.latest = 1 AND s.revoked_at IS NULL)`,
  tagged: "EXISTS (SELECT 1 FROM json_each(t.tags) WHERE value = @tag)"
}
