import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { DomainError } from "@convene/core"
import { Data, Effect } from "effect"

/** Errors that only the HTTP edge can raise (the core never sees a body). */
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly message: string }> {}
export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{ readonly message: string }> {}

export type ApiError = DomainError | PayloadTooLarge | UnsupportedMediaType

/**
 * Every JSON answer: the text as it is, which node writes with its headers in one write (the platform's JSON body
 * is the text copied into bytes first, then written apart from the headers). serve.ts gives its length.
 */
export const json = (status: number, body: unknown, headers?: Readonly<Record<string, string>>) =>
  HttpServerResponse.raw(JSON.stringify(body), { status, contentType: "application/json", ...(headers === undefined ? {} : { headers }) })

/** The one place where an error becomes a status and a body (decisions.md §1). */
export const errorResponse = (e: ApiError): HttpServerResponse.HttpServerResponse => {
  switch (e._tag) {
    case "NotFound":
      return json(404, { error: e.message })
    case "Forbidden":
      return json(403, { error: e.message })
    case "BadRequest":
      return json(400, { error: e.message })
    case "Invalid":
      return json(422, { errors: e.errors })
    case "PayloadTooLarge":
      return json(413, { error: e.message })
    case "UnsupportedMediaType":
      return json(415, { error: e.message })
    case "TooManyRequests":
      return json(429, { error: e.message }, { "retry-after": String(e.retryAfter) })
  }
}

/** A decoding problem (a body field or a parameter) as the 400 message naming it. */
export const issueMessage = (issue: { readonly _tag: string; readonly path: ReadonlyArray<PropertyKey>; readonly message: string }): string => {
  const field = issue.path.map(String).join(".")
  if (issue._tag === "Unexpected") return `Unknown field: ${field}`
  if (issue._tag === "Missing") return `Missing required parameter: ${field}`
  return field === "" ? issue.message : `Invalid ${field}: ${issue.message}`
}

export const internalError = (requestId: string) => json(500, { error: "Internal error", request_id: requestId })

/**
 * Another process held the database's write lock longer than a write waits (5 s): an operator's import,
 * restore or a second server. Nothing was written; the client may try again.
 */
export const databaseBusy = () =>
  json(503, { error: "The database is busy; try again shortly" }, { "retry-after": "5" })

/** Every handler ends here: success is already a response, every expected error becomes one. */
export const respond = <R>(
  effect: Effect.Effect<HttpServerResponse.HttpServerResponse, ApiError, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> => Effect.catchAll(effect, (e) => Effect.succeed(errorResponse(e)))

export const ok = (body: unknown) => json(200, body)
