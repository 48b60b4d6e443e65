/** Reading a request body within a limit, shared by the pages' forms (serve.ts) and the inbound mail route. */
import type * as http from "node:http"

/**
 * Reads a request's body, calling `done` with it, or with undefined as soon as it is over `max` bytes (the rest
 * is read and dropped, so the answer reaches the client instead of a reset connection).
 */
export const readWithin = (req: http.IncomingMessage, max: number, done: (body: Buffer | undefined) => void) => {
  const chunks: Array<Buffer> = []
  let size = 0
  let over = false
  req.on("data", (chunk: Buffer) => {
    if (over) return
    size += chunk.length
    if (size <= max) return void chunks.push(chunk)
    over = true
    chunks.length = 0
    done(undefined)
  })
  req.on("end", () => {
    if (!over) done(Buffer.concat(chunks))
  })
}
