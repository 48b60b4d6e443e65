/**
 * Query and path parameters, each declared once as a Schema: it decodes the text a client sends into a
 * typed value (decisions.md §1: decimal integers, booleans true/false/1/0, enumerated words) and, through
 * its `jsonSchema` annotation, documents the parameter as its type in the OpenAPI documents. A decode
 * failure becomes the 400 body naming the parameter (errors.ts).
 *
 * A parameter sent twice counts once, by its last value, as Rails reads it.
 */
import {
  REPORT_GROUP_SCOPES,
  REPORT_INTERVALS,
  REPORT_MEMBER_TYPES,
  REPORT_SECTIONS,
  SEARCH_ORDERS,
  SEARCHABLE_TYPES
} from "@convene/core"
import { ParseResult, Schema, type SchemaAST } from "effect"

const ParseOk = ParseResult.succeed
const ParseFail = (ast: SchemaAST.AST, actual: string, message: string) => ParseResult.fail(new ParseResult.Type(ast, actual, message))

/** The largest page served; a larger `limit` is served as this many (Loomio's contract sets no maximum). */
export const MAX_PAGE = 1000

/** One query value: the last of repeated ones. */
const Text = Schema.transform(Schema.Union(Schema.String, Schema.NonEmptyArray(Schema.String)), Schema.String, {
  strict: true,
  decode: (v) => (typeof v === "string" ? v : v[v.length - 1]!),
  encode: (v) => v
})

interface IntOptions {
  readonly minimum?: number
  /** larger values are served as this one (page sizes) */
  readonly clampTo?: number
  readonly description: string
  readonly default?: number
}

/** A decimal integer parameter with its bounds; the documentation says `integer` with the same bounds. */
export const QueryInt = (o: IntOptions) => {
  const words = o.minimum === undefined ? "an integer" : `an integer of at least ${o.minimum}`
  const decoded = Schema.transformOrFail(Text, Schema.Number, {
    strict: true,
    decode: (s, _, ast) => {
      const n = /^-?[0-9]{1,15}$/.test(s) ? Number(s) : Number.NaN
      if (Number.isNaN(n) || (o.minimum !== undefined && n < o.minimum)) {
        return ParseFail(ast, s, `must be ${words}`)
      }
      return ParseOk(o.clampTo !== undefined ? Math.min(n, o.clampTo) : n)
    },
    encode: (n) => ParseOk(String(n))
  })
  return decoded.annotations({
    description: o.description,
    jsonSchema: {
      type: "integer",
      description: o.description,
      ...(o.minimum === undefined ? {} : { minimum: o.minimum }),
      ...(o.default === undefined ? {} : { default: o.default })
    }
  })
}

/** One of a fixed set of words; the documentation lists them. */
export const QueryEnum = <const T extends ReadonlyArray<string>>(values: T, description: string, aliases: Readonly<Record<string, T[number]>> = {}) => {
  const accepted = [...values, ...Object.keys(aliases)]
  return Schema.transformOrFail(Text, Schema.Literal(...values), {
    strict: true,
    decode: (s, _, ast) =>
      accepted.includes(s)
        ? ParseOk((Object.hasOwn(aliases, s) ? aliases[s]! : s) as T[number])
        : ParseFail(ast, s, `must be one of ${values.join(", ")}`),
    encode: (v) => ParseOk(v)
  }).annotations({ description, jsonSchema: { type: "string", enum: accepted, description } })
}

export const QueryBool = (description: string) =>
  Schema.transformOrFail(Text, Schema.Boolean, {
    strict: true,
    decode: (s, _, ast) =>
      s === "true" || s === "1" ? ParseOk(true) : s === "false" || s === "0" ? ParseOk(false) : ParseFail(ast, s, "must be true, false, 1 or 0"),
    encode: (b) => ParseOk(b ? "true" : "false")
  }).annotations({ description, jsonSchema: { type: "boolean", description } })

export const QueryText = (description: string, pattern?: RegExp) =>
  (pattern === undefined
    ? Text
    : Schema.transformOrFail(Text, Schema.String, {
      strict: true,
      decode: (s, _, ast) => (pattern.test(s) ? ParseOk(s) : ParseFail(ast, s, `must match ${pattern.source}`)),
      encode: ParseOk
    })).annotations({ description, jsonSchema: { type: "string", description, ...(pattern === undefined ? {} : { pattern: pattern.source }) } })

// The common parameters (spec: "Common query parameters").

export const compact = Schema.optional(Schema.transformOrFail(Text, Schema.Literal(1), {
  strict: true,
  decode: (s, _, ast) => (s === "1" ? ParseOk(1 as const) : ParseFail(ast, s, "the only allowed value is 1")),
  encode: () => ParseOk("1")
}).annotations({
  jsonSchema: { type: "integer", enum: [1], description: "Only 1: omit bulky related records (topics, groups, parents, memberships, reactions, tags)" }
}))

export const exclude_types = Schema.optional(QueryText("Singular record types to omit from the related records, separated by spaces or '+'"))

/** `compact` and `exclude_types`, on every endpoint that answers a compound document. */
export const ResponseParams = { compact, exclude_types }

const limit = QueryInt({ minimum: 1, clampTo: MAX_PAGE, default: 50, description: `Page size, at least 1 (default 50); at most ${MAX_PAGE} records are served` })
const offset = QueryInt({ minimum: 0, default: 0, description: "Records to skip (default 0)" })

export const PageParams = { limit: Schema.optional(limit), offset: Schema.optional(offset) }

/** The discussion and poll lists keep Loomio's `per`/`from` aliases (spec: Versioning 5). */
export const AliasedPageParams = {
  ...PageParams,
  per: Schema.optional(limit.annotations({ description: "Alias of limit" })),
  from: Schema.optional(offset.annotations({ description: "Alias of offset" }))
}

export const groupIdRequired = QueryInt({ description: "Group id (required)" })

/** Reads paging after decoding: `limit`/`offset`, else their aliases, else the defaults. */
export const page = (p: { limit?: number; offset?: number; per?: number; from?: number }, defaultLimit = 50) => ({
  limit: p.limit ?? p.per ?? defaultLimit,
  offset: p.offset ?? p.from ?? 0
})

// Per-list parameters, their words from the same constants the core uses.

export const discussionStatus = QueryEnum(["open", "closed", "all"], "open (default), closed or all", { unlocked: "open", locked: "closed" })
export const pollStatus = QueryEnum(["active", "closed", "all"], "active (default), closed or all")

export const ReportParams = {
  section: Schema.optional(QueryEnum(REPORT_SECTIONS, "base (default), users or countries")),
  group_scope: Schema.optional(QueryEnum(REPORT_GROUP_SCOPES, "custom (with group_ids) or my; all is read as my")),
  group_ids: Schema.optional(QueryText("Comma-separated group ids; groups the caller is not a member of are ignored", /^[0-9, ]*$/)),
  start_month: Schema.optional(QueryText("YYYY-MM, default 12 months ago", /^[0-9]{4}-[0-9]{2}$/)),
  end_month: Schema.optional(QueryText("YYYY-MM, default the current month", /^[0-9]{4}-[0-9]{2}$/)),
  interval: Schema.optional(QueryEnum(REPORT_INTERVALS, "day, week, month (default) or year, for section=base")),
  member_type: Schema.optional(QueryEnum(REPORT_MEMBER_TYPES, "delegate: with section=users, only current delegates"))
}

export const SearchParams = {
  query: Schema.optional(QueryText("Text, matched as text: words, prefixes and words one typo away")),
  group_id: Schema.optional(QueryInt({ description: "One group" })),
  org_id: Schema.optional(QueryInt({ minimum: 0, description: "A group and its subgroups; 0: threads without a group" })),
  type: Schema.optional(QueryEnum(SEARCHABLE_TYPES, "One result type")),
  types: Schema.optional(QueryText("Comma-separated result types")),
  tag: Schema.optional(QueryText("Threads with this tag")),
  author_id: Schema.optional(QueryInt({ description: "Only this author; without query, their recent visible activity" })),
  order: Schema.optional(QueryEnum(SEARCH_ORDERS, "authored_at_desc, authored_at_asc or relevance (default)")),
  ...ResponseParams
}
