import { Schema } from "effect"

/** Domain errors are values. The HTTP layer maps each tag to one status (decisions.md §1). */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String
}) {}

export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String
}) {}

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", {
  message: Schema.String
}) {}

export class Invalid extends Schema.TaggedError<Invalid>()("Invalid", {
  errors: Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) })
}) {}

/** Too many attempts: try again after `retryAfter` seconds (HTTP 429 with Retry-After). */
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", {
  message: Schema.String,
  retryAfter: Schema.Number
}) {}

export type DomainError = NotFound | Forbidden | BadRequest | Invalid | TooManyRequests

export const notFound = (what = "Not found") => new NotFound({ message: what })
export const forbidden = (message = "You are not authorized to access this page.") => new Forbidden({ message })
export const badRequest = (message: string) => new BadRequest({ message })
export const tooManyRequests = (message: string, retryAfterMs: number) =>
  new TooManyRequests({ message, retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)) })
export const invalid = (field: string, ...messages: string[]) => new Invalid({ errors: { [field]: messages } })
