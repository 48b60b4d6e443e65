/**
 * A record declared once, in the manner of `@effect/sql`'s `Model`: one Struct of fields gives the domain
 * type (`typeof X.Type`), the row mapping both stores share (`X.fromRow`, made from the fields: booleans
 * from 0/1, lists and objects from their JSON text, nothing else touched), and the fields the wire
 * declarations (http/records.ts) take, so a field's type is written in one place. `copier` makes the
 * serializer's copy of the fields a wire record takes unchanged from its domain record.
 *
 * The mappings are generated once per declaration as plain functions (`new Function`): a row is read on
 * every request, and a loop over the fields per row costs more than the light read can spare.
 */
import { Schema, SchemaAST } from "effect"

export const Id = Schema.Int
export const NullId = Schema.NullOr(Schema.Int)
/** An instant, ISO 8601 text in UTC (as stored and as sent) */
export const Stamp = Schema.String.annotations({ jsonSchema: { type: "string", format: "date-time" } })
export const NullStamp = Schema.NullOr(Stamp)
export const NullText = Schema.NullOr(Schema.String)
export const Format = Schema.Literal("md", "html")

type Kind = "plain" | "bool" | "json"

/** How a field is stored: booleans as 0/1, arrays and objects as JSON text, the rest as it is. */
const kindOf = (ast: SchemaAST.AST): Kind => {
  switch (ast._tag) {
    case "BooleanKeyword":
      return "bool"
    case "TupleType":
    case "TypeLiteral":
      return "json"
    case "Refinement":
      return kindOf(ast.from)
    case "Transformation":
      return kindOf(ast.to)
    case "Union": {
      const kinds = new Set(ast.types.filter((t) => t._tag !== "Literal" || t.literal !== null).map(kindOf))
      return kinds.size === 1 ? [...kinds][0]! : "plain"
    }
    default:
      return "plain"
  }
}

const astOf = (field: Schema.Struct.Field): SchemaAST.AST =>
  Schema.isSchema(field) ? field.ast : (field as unknown as { ast: SchemaAST.PropertySignature }).ast.type

/** A property access that any field name survives (the names are the declaration's, never input). */
const prop = (name: string) => `r[${JSON.stringify(name)}]`

const readers: Record<Kind, (name: string) => string> = {
  plain: prop,
  bool: (name) => `(${prop(name)} === 1 || ${prop(name)} === true)`,
  json: (name) => `(typeof ${prop(name)} === "string" ? JSON.parse(${prop(name)}) : ${prop(name)})`
}

const compile = <A>(body: string) => new Function("r", `return ${body}`) as (row: unknown) => A

/**
 * The row mapping of a set of fields: each declared column read by its kind; a column not declared is left out.
 * With a prefix, the columns are read under `prefix` + name (a record joined to another, `Model.joined`).
 */
export const rowReader = <F extends Schema.Struct.Fields>(fields: F, prefix = ""): (row: unknown) => Schema.Struct.Type<F> =>
  compile(`{ ${Object.keys(fields).map((name) => `${JSON.stringify(name)}: ${readers[kindOf(astOf(fields[name]!))](prefix + name)}`).join(", ")} }`)

/** A value as both stores take it in a statement: a flag as 0/1 (the one place a flag is turned into a column's value). */
export const columnValue = (v: unknown): unknown => (typeof v === "boolean" ? (v ? 1 : 0) : v)

/** A record's values (all or some) as both stores take them: flags as 0/1, lists and objects as JSON text. */
export const rowWriter = <F extends Schema.Struct.Fields>(fields: F) => {
  const kinds = new Map(Object.keys(fields).map((name) => [name, kindOf(astOf(fields[name]!))]))
  return (values: Partial<Schema.Struct.Type<F>> & Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {}
    for (const [name, v] of Object.entries(values)) {
      if (v === undefined) continue
      out[name] = kinds.get(name) === "json" ? JSON.stringify(v) : columnValue(v)
    }
    return out
  }
}

export interface Model<F extends Schema.Struct.Fields> extends Schema.Struct<F> {
  /** a stored row as the record (booleans from 0/1, JSON text parsed) */
  readonly fromRow: (row: unknown) => Schema.Struct.Type<F>
  /** the record's values (all or some) as a row to write */
  readonly toRow: ReturnType<typeof rowWriter<F>>
  /** the names of its flags (booleans, 0/1 in a row) */
  readonly flags: ReadonlyArray<keyof F & string>
  /**
   * The record read beside another in one statement: its columns from the table aliased `alias`, named
   * `alias.column` so that none meets the other record's, and the mapping of such a row.
   */
  readonly joined: (alias: string) => { readonly columns: string; readonly fromRow: (row: unknown) => Schema.Struct.Type<F> }
}

/** Declares a record once. */
export const model = <F extends Schema.Struct.Fields>(identifier: string, fields: F): Model<F> => {
  const struct = Schema.Struct(fields).annotations({ identifier })
  const joined = (alias: string) => ({
    columns: Object.keys(fields).map((name) => `${alias}.${name} AS "${alias}.${name}"`).join(", "),
    fromRow: rowReader(fields, `${alias}.`)
  })
  const flags = Object.keys(fields).filter((name) => kindOf(astOf(fields[name]!)) === "bool")
  return Object.assign(struct, { fromRow: rowReader(fields), toRow: rowWriter(fields), flags, joined }) as Model<F>
}

type Fields = Schema.Struct.Fields
type Copied<W extends Fields, D extends Fields, X extends keyof W> = Exclude<keyof W & keyof D, X>

/**
 * A serializer made from a wire declaration and the domain record it shows: every wire field the domain
 * record also declares is copied from it, except those named in `computed`; the serializer is given those and
 * the wire's own fields (`values`). The object's fields come in the wire declaration's order (optional ones
 * last, left out when undefined). A copied field whose domain type the wire type does not take fails to compile.
 */
export const serializer = <W extends Fields, D extends Fields, const X extends keyof W = never>(
  wire: W,
  domain: D,
  computed: ReadonlyArray<X> = []
): Pick<Schema.Struct.Type<D>, Copied<W, D, X> & keyof Schema.Struct.Type<D>> extends Pick<Schema.Struct.Type<W>, Copied<W, D, X> & keyof Schema.Struct.Type<W>>
  ? (record: Schema.Struct.Type<D>, values: Omit<Schema.Struct.Type<W>, Copied<W, D, X>>) => Schema.Struct.Type<W>
  : "a copied field's domain type is not the wire's" =>
{
  const optional = (name: string) => {
    const f = wire[name]!
    return !Schema.isSchema(f) && (f as unknown as { ast: SchemaAST.PropertySignature }).ast.isOptional
  }
  const copied = (name: string) => name in domain && !(computed as ReadonlyArray<string>).includes(name)
  const names = Object.keys(wire)
  const source = (n: string) => (copied(n) ? prop(n) : `x[${JSON.stringify(n)}]`)
  const required = names.filter((n) => !optional(n)).map((n) => `${JSON.stringify(n)}: ${source(n)}`)
  const later = names.filter(optional).map((n) => `if (${source(n)} !== undefined) o[${JSON.stringify(n)}] = ${source(n)};`)
  return new Function("r", "x", `const o = { ${required.join(", ")} }; ${later.join(" ")} return o`) as never
}

/** The fields of a declaration a wire record takes as they are (names in the wire's order). */
export const fieldsOf = <F extends Fields, const K extends keyof F>(model: { readonly fields: F }, ...names: ReadonlyArray<K>): Pick<F, K> =>
  Object.fromEntries(names.map((n) => [n, model.fields[n]])) as Pick<F, K>
