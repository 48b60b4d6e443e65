/** Reading a request's body within a limit: the one reader of the API, the pages' forms and the inbound mail route. */
import type * as http from "node:http"

/** What reading a body came to: the bytes, or over the limit, or the connection failed. */
export type BodyRead =
  | { readonly _tag: "Body"; readonly body: Buffer }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Failed"; readonly cause: Error }

/**
 * Reads a request's body and calls `done` once: with it, or as soon as it is over `max` bytes (the rest is
 * read and dropped, so the answer reaches the client instead of a reset connection), or on a stream error.
 */
export const readWithin = (req: http.IncomingMessage, max: number, done: (read: BodyRead) => void) => {
  const chunks: Array<Buffer> = []
  let size = 0
  let settled = false
  const settle = (read: BodyRead) => {
    if (settled) return
    settled = true
    chunks.length = 0
    done(read)
  }
  req.on("data", (chunk: Buffer) => {
    if (settled) return
    size += chunk.length
    if (size <= max) return void chunks.push(chunk)
    settle({ _tag: "TooLarge" })
  })
  req.once("end", () => {
    if (!settled) settle({ _tag: "Body", body: Buffer.concat(chunks) })
  })
  req.once("error", (cause) => settle({ _tag: "Failed", cause }))
}
