/**
 * Everything the CLI writes goes through here: records on stdout (JSON with --json, short lines
 * otherwise), messages on stderr, and the one mapping from errors to exit codes (decisions.md §4).
 */
import type { DomainError } from "@convene/core"
import { io } from "./io.js"

export const EXIT_OK = 0
export const EXIT_DOMAIN = 1
export const EXIT_USAGE = 2

export interface Output {
  readonly json: boolean
  /**
   * With --json, `value` as one JSON document (on one line with `oneLine`: serve's start record, which the
   * log's JSON lines follow); otherwise the human lines. Nothing else goes to stdout.
   */
  readonly emit: (value: unknown, human: string | ReadonlyArray<string>, options?: { readonly oneLine?: boolean }) => void
  /** A remark for a person (stderr, so stdout stays clean for scripts). */
  readonly note: (message: string) => void
  /** Reports a failure on stderr and sets the exit code. */
  readonly fail: (error: unknown) => void
}

export const makeOutput = (json: boolean): Output => ({
  json,
  emit: (value, human, options) => {
    if (json) io().stdout(JSON.stringify(value, null, options?.oneLine === true ? undefined : 2) + "\n")
    else for (const line of typeof human === "string" ? [human] : human) io().stdout(line + "\n")
  },
  note: (message) => {
    io().stderr(message + "\n")
  },
  fail: (error) => {
    // with --json a failure is JSON too (on stderr; stdout stays empty), with the same exit codes
    io().stderr(json ? JSON.stringify({ error: errorMessage(error) }) + "\n" : `error: ${errorMessage(error)}\n`)
    io().exitCode = EXIT_DOMAIN
  }
})

const DOMAIN_TAGS = new Set(["NotFound", "Forbidden", "BadRequest", "Invalid", "TooManyRequests"])

/** Core use cases reject with the error value itself (see makeConvene's `run`). */
export const isDomainError = (e: unknown): e is DomainError =>
  typeof e === "object" && e !== null && DOMAIN_TAGS.has((e as { _tag?: unknown })._tag as string)

/** A failure the CLI itself detects that is not bad usage (e.g. no database file): exit 1 like a domain error. */
export class CliError extends Error {}

export const errorMessage = (e: unknown): string => {
  if (isDomainError(e)) {
    if (e._tag === "Invalid") {
      return Object.entries(e.errors).flatMap(([field, msgs]) => msgs.map((m) => `${field} ${m}`)).join("; ")
    }
    return e.message
  }
  return e instanceof Error ? e.message : String(e)
}
