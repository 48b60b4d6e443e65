/**
 * A flag read from a row: SQLite's 0/1 or PostgreSQL's boolean (the store's runner gives the records' own types).
 * A record's columns are read by its declaration (domain/model.ts); a computed flag outside one is read here. A
 * record's flags are written by its declaration (`X.toRow`), a statement's own by `columnValue` (domain/model.ts).
 */
export const bool = (v: unknown): boolean => v === 1 || v === true

/** A list or object read from a row outside a record's declaration: SQLite's JSON text or PostgreSQL's parsed jsonb. */
export const json = <A>(v: unknown): A => (typeof v === "string" ? JSON.parse(v) : v) as A

/**
 * A statement's rows are built from the driver's arrays of values (better-sqlite3's raw rows, pg's data rows), each
 * as one object literal compiled once per statement and its columns: it comes out whole, in one shape. A row grown a
 * property at a time (both drivers' own way: better-sqlite3 through the engine's API, pg on a null-prototype object
 * copied for every row) cost the 70-column read of a discussion with its thread and group 6-9 µs; now 0.15-0.26 µs.
 * Same objects as the drivers': one key per result column, in order, a repeated name in its first place with its
 * last value, as assignment does. `parsers` (PostgreSQL's text values to what SQLite gives) applies one per column
 * that is not null; `undefined` in it leaves that column's text as it is.
 */
export const rowBuilder = (names: ReadonlyArray<string>, parsers?: ReadonlyArray<((text: string) => unknown) | undefined>) => {
  const value = (i: number) => (parsers?.[i] === undefined ? `v[${i}]` : `v[${i}] === null ? null : p[${i}](v[${i}])`)
  const literal = names.map((n, i) => `${n === "__proto__" ? `["__proto__"]` : JSON.stringify(n)}: ${value(i)}`).join(", ")
  return new Function("p", `return (v) => ({ ${literal} })`)(parsers) as (values: ReadonlyArray<unknown>) => Record<string, unknown>
}
