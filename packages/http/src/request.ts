/**
 * Reading what a client sent, the way Loomio clients send it (decisions.md §1, §1a): JSON or form bodies,
 * flat or wrapped under the resource name, query fields filling gaps in a POST body, and strict
 * decoding (unknown fields and wrong types → 400 naming the field).
 */
import { HttpServerRequest } from "@effect/platform"
import { BadRequest, badRequest, type NotFound, notFound, type Page } from "@convene/core"
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import qs from "qs"
import { PayloadTooLarge, UnsupportedMediaType } from "./errors.js"
import { Settings } from "./settings.js"

export type Fields = Record<string, unknown>

const isObject = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v)

const parseForm = (text: string): Fields => qs.parse(text, { depth: 4, arrayLimit: 1000, parameterLimit: 2000 }) as Fields

const cache = new WeakMap<object, Effect.Effect<Fields, BodyError>>()

type BodyError = BadRequest | PayloadTooLarge | UnsupportedMediaType

const readBody = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<Fields, BodyError> =>
  Effect.gen(function*() {
    const length = Number(request.headers["content-length"] ?? "0")
    if (length > limit) return yield* new PayloadTooLarge({ message: `Request body is larger than ${limit} bytes` })
    const text: string = yield* request.text.pipe(
      HttpServerRequest.withMaxBodySize(Option.some(limit)),
      Effect.catchAll((e): Effect.Effect<never, BodyError> =>
        String((e as { cause?: unknown }).cause).includes("maxBytes")
          ? Effect.fail(new PayloadTooLarge({ message: `Request body is larger than ${limit} bytes` }))
          : Effect.fail(badRequest("Could not read the request body"))
      )
    )
    if (text.trim() === "") return {}
    const type = (request.headers["content-type"] ?? "application/json").split(";")[0]!.trim().toLowerCase()
    if (type === "application/json" || type.endsWith("+json")) {
      const parsed = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => badRequest("Malformed JSON body") })
      if (!isObject(parsed)) return yield* badRequest("The JSON body must be an object")
      return parsed
    }
    if (type === "application/x-www-form-urlencoded") return parseForm(text)
    return yield* new UnsupportedMediaType({ message: `Unsupported Content-Type ${type}: send application/json` })
  })

/** The request body as fields, read once per request (the auth middleware and the handler share it). */
export const bodyFields: Effect.Effect<Fields, BodyError, HttpServerRequest.HttpServerRequest | Settings> = Effect.gen(
  function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const settings = yield* Settings
    const key = request.source as object
    let body = cache.get(key)
    if (body === undefined) {
      body = yield* Effect.cached(readBody(request, settings.maxBodyBytes))
      cache.set(key, body)
    }
    return yield* body
  }
)

/** The query string as a URLSearchParams. */
export const query = Effect.map(HttpServerRequest.HttpServerRequest, (r) => new URL(r.url, "http://x").searchParams)

/**
 * The input of a write: `{resource: {...}}` or flat fields; `api_key` removed (it is a credential, not input);
 * on POST, query fields fill what the body lacks (never `api_key`).
 */
export const inputFields = (resource?: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const raw = yield* bodyFields
    const { api_key: _key, ...rest } = raw
    let fields: Fields = rest
    if (resource !== undefined && isObject(rest[resource])) {
      const { [resource]: wrapped, ...others } = rest
      fields = { ...others, ...(wrapped as Fields) }
    }
    if (request.method === "POST") {
      const q = parseForm((request.url.split("?")[1] ?? ""))
      for (const [k, v] of Object.entries(q)) if (k !== "api_key" && !(k in fields)) fields[k] = v
    }
    return fields
  })

/** Decodes input with a Schema; the first problem becomes a 400 naming the field. */
export const decode = <A, I>(schema: Schema.Schema<A, I>) => {
  const run = Schema.decodeUnknownEither(schema, { onExcessProperty: "error", errors: "first" })
  return (input: unknown): Effect.Effect<A, BadRequest> =>
    Either.match(run(input), {
      onRight: Effect.succeed,
      onLeft: (error) => {
        const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
        if (issue === undefined) return Effect.fail(badRequest("Invalid request"))
        const field = issue.path.map(String).join(".")
        if (issue._tag === "Unexpected") return Effect.fail(badRequest(`Unknown field: ${field}`))
        if (issue._tag === "Missing") return Effect.fail(badRequest(`Missing required field: ${field}`))
        return Effect.fail(badRequest(field === "" ? issue.message : `Invalid ${field}: ${issue.message}`))
      }
    })
}

// Scalars that JSON sends typed and forms send as strings.

export const Int = Schema.Union(Schema.Int, Schema.compose(Schema.NumberFromString, Schema.Int)).annotations({
  message: () => "must be an integer",
  jsonSchema: { type: "integer" }
})

const boolWords = { true: true, false: false, "1": true, "0": false } as const
export const Bool = Schema.Union(
  Schema.Boolean,
  Schema.transform(Schema.Literal("true", "false", "1", "0", 1, 0), Schema.Boolean, {
    strict: true,
    decode: (v) => boolWords[String(v) as keyof typeof boolWords],
    encode: (b) => (b ? "true" : "false")
  })
).annotations({ message: () => "must be true, false, 1 or 0", jsonSchema: { type: "boolean" } })

export const Str = Schema.String.annotations({ message: () => "must be a string" })
export const StrArray = Schema.Array(Str).annotations({ message: () => "must be an array of strings" })

// Query parameters (decisions.md §1: booleans true/false/1/0, decimal integers, anything else 400).

const single = (q: URLSearchParams, name: string): string | undefined => {
  const all = q.getAll(name)
  return all.length === 0 ? undefined : all[all.length - 1]
}

export const intParam = (q: URLSearchParams, name: string, opts: { min?: number; max?: number } = {}) =>
  Effect.suspend((): Effect.Effect<number | undefined, BadRequest> => {
    const v = single(q, name)
    if (v === undefined || v === "") return Effect.succeed(undefined)
    if (!/^-?[0-9]{1,15}$/.test(v)) return Effect.fail(badRequest(`${name} must be an integer`))
    const n = Number(v)
    if (opts.min !== undefined && n < opts.min) return Effect.fail(badRequest(`${name} must be at least ${opts.min}`))
    if (opts.max !== undefined && n > opts.max) return Effect.fail(badRequest(`${name} must be at most ${opts.max}`))
    return Effect.succeed(n)
  })

export const requiredIntParam = (q: URLSearchParams, name: string) =>
  Effect.flatMap(intParam(q, name), (n) => (n === undefined ? Effect.fail(badRequest(`Missing required parameter: ${name}`)) : Effect.succeed(n)))

export const boolParam = (q: URLSearchParams, name: string) =>
  Effect.suspend((): Effect.Effect<boolean | undefined, BadRequest> => {
    const v = single(q, name)
    if (v === undefined) return Effect.succeed(undefined)
    if (v in boolWords) return Effect.succeed(boolWords[v as keyof typeof boolWords])
    return Effect.fail(badRequest(`${name} must be true, false, 1 or 0`))
  })

/**
 * A query parameter with a fixed set of values (`words` maps what clients send, aliases included, to a
 * value); absent or empty → `fallback`; anything else → 400 naming the parameter and the values.
 */
export const enumParam = <T extends string>(q: URLSearchParams, name: string, words: Readonly<Record<string, T>>, fallback: T) =>
  Effect.suspend((): Effect.Effect<T, BadRequest> => {
    const v = q.get(name)
    if (v === null || v === "") return Effect.succeed(fallback)
    return Object.hasOwn(words, v)
      ? Effect.succeed(words[v]!)
      : Effect.fail(badRequest(`${name} must be ${[...new Set(Object.values(words))].join(", ")}`))
  })

/** A path id that is not a whole number names no record: 404, like an unknown one. */
export const numericId = (id: string, what: string): Effect.Effect<number, NotFound> =>
  /^[0-9]{1,15}$/.test(id) ? Effect.succeed(Number(id)) : Effect.fail(notFound(`${what} ${id} not found`))

export const MAX_LIMIT = 200

/** `limit`/`offset`, with `per`/`from` where the endpoint keeps Loomio's aliases. */
export const pageParams = (q: URLSearchParams, opts: { aliases?: boolean; defaultLimit?: number; maxLimit?: number } = {}) =>
  Effect.gen(function*() {
    const max = opts.maxLimit ?? MAX_LIMIT
    const limitName = q.has("limit") || !opts.aliases || !q.has("per") ? "limit" : "per"
    const offsetName = q.has("offset") || !opts.aliases || !q.has("from") ? "offset" : "from"
    const limit = yield* intParam(q, limitName, { min: 1, max })
    const offset = yield* intParam(q, offsetName, { min: 0 })
    return { limit: limit ?? opts.defaultLimit ?? 50, offset: offset ?? 0 } satisfies Page
  })

export type { BadRequest }
