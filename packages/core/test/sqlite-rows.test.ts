/**
 * The SQLite adapter builds each row from better-sqlite3's arrays (sqlite/db.ts): the same object a row by name
 * would be: one own property per result column in the statement's order, a repeated name in its first place with
 * its last value, any column name (`__proto__` too) an ordinary property, every column of a wide row.
 */
import Database from "better-sqlite3"
import t from "tap"
import { statementCache } from "../src/sqlite/db.js"

t.test("a row is the object its columns name", async (t) => {
  const db = new Database(":memory:")
  t.teardown(() => db.close())
  const stmt = statementCache(db)
  const row = stmt(`SELECT 1 AS a, 'two' AS b, NULL AS "t.c", 3 AS a`).get() as Record<string, unknown>
  t.same(Object.entries(row), [["a", 3], ["b", "two"], ["t.c", null]], "in order, a repeated name with its last value")
  t.same(row, new Database(":memory:").prepare(`SELECT 1 AS a, 'two' AS b, NULL AS "t.c", 3 AS a`).get(), "as better-sqlite3 builds it")

  const odd = stmt(`SELECT 1 AS "__proto__", 2 AS "constructor", 3 AS "with ""quotes"" and \\ backslash"`).get() as Record<string, unknown>
  t.equal(Object.getPrototypeOf(odd), Object.prototype, "a column named __proto__ does not change the row's prototype")
  t.same(Object.keys(odd), ["__proto__", "constructor", `with "quotes" and \\ backslash`])
  t.equal(odd["__proto__" as never], 1)

  const wide = Array.from({ length: 120 }, (_, i) => `${i} AS c${i}`).join(", ")
  const rows = stmt(`SELECT ${wide} FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5)`)
  // the first read row by row, the next as one JSON text (from four rows on): the same rows both ways
  for (const pass of ["row by row", "as JSON"]) {
    const all = rows.all() as Array<Record<string, unknown>>
    t.equal(all.length, 5, pass)
    t.same(Object.keys(all[0]!).length, 120, `${pass}: every column`)
    t.equal(all[4]!.c119, 119, pass)
  }
})
