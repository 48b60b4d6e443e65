/**
 * Reading what a client sent, the way Loomio clients send it (decisions.md §1, §1a): JSON or form bodies,
 * flat or wrapped under the resource name, query fields filling gaps in a POST body, and strict
 * decoding (unknown fields and wrong types → 400 naming the field).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { BadRequest, badRequest, isNumericId, type NotFound, notFound } from "@convene/core"
import { Effect, Either, type Exit, Option, ParseResult, Schema } from "effect"
import qs from "qs"
import { issueMessage, PayloadTooLarge, UnsupportedMediaType } from "../errors.js"
import { Settings } from "../settings.js"

export type Fields = Record<string, unknown>

const isObject = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v)

const parseForm = (text: string): Fields => qs.parse(text, { depth: 4, arrayLimit: 1000, parameterLimit: 2000 }) as Fields

/** No input of the API nests deeper than a few levels; anything deeper is refused before decoding. */
export const MAX_JSON_DEPTH = 32

/** Whether a parsed JSON value nests arrays or objects more than `max` levels deep (iterative: no stack to overflow). */
const nestedDeeperThan = (value: unknown, max: number): boolean => {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v !== "object" || v === null) continue
    if (depth > max) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1])
  }
  return false
}

const cache = new WeakMap<object, Exit.Exit<Fields, BodyError>>()

type BodyError = BadRequest | PayloadTooLarge | UnsupportedMediaType

const readBody = Effect.fnUntraced(function*(request: HttpServerRequest.HttpServerRequest, limit: number): Effect.fn.Return<Fields, BodyError> {
  const length = Number(request.headers["content-length"] ?? "0")
  if (length > limit) return yield* new PayloadTooLarge({ message: `Request body is larger than ${limit} bytes` })
  // the server's context already holds this limit (server.ts): setting it again would be a provide per request
  const current = yield* HttpServerRequest.MaxBodySize
  const bounded = Option.isSome(current) && Number(current.value) === limit
    ? request.text
    : HttpServerRequest.withMaxBodySize(request.text, Option.some(limit))
  const text: string = yield* bounded.pipe(
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
    if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) return yield* badRequest(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`)
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
      // one fiber per request: its outcome kept is enough (Effect.cached would also guard concurrent readers)
      body = yield* Effect.exit(readBody(request, settings.maxBodyBytes))
      cache.set(key, body)
    }
    return yield* body
  }
)

/**
 * The input of a write: `{resource: {...}}` or flat fields; `api_key` removed (it is a credential, not input);
 * on POST, query fields fill what the body lacks (never `api_key`).
 */
export const inputFields = Effect.fnUntraced(function*(resource?: string) {
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
  // Loomio's contract marks update bodies required: an empty one is a mistake, not a no-op (decisions §1);
  // inputs without a resource name (b3's {user}) say which field is missing when they decode
  if (resource !== undefined && (request.method === "PATCH" || request.method === "PUT") && Object.keys(fields).length === 0) {
    return yield* badRequest("The request body is required: send the fields to change")
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
        return Effect.fail(badRequest(issue._tag === "Missing" ? `Missing required field: ${issue.path.map(String).join(".")}` : issueMessage(issue)))
      }
    })
}

/** A path id that is not a whole number names no record: 404, like an unknown one. */
export const numericId = (id: string, what: string): Effect.Effect<number, NotFound> =>
  isNumericId(id) ? Effect.succeed(Number(id)) : Effect.fail(notFound(`${what} ${id} not found`))

export type { BadRequest }
