/** A real HTTP receiver on 127.0.0.1 for webhook tests: records requests, answers as told. */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: any
}

export type Reply = (req: Received) => { status?: number; body?: string; hangMs?: number; destroy?: boolean }

export const startReceiver = async (reply: Reply = () => ({ status: 200 })) => {
  const received: Array<Received> = []
  const waiters: Array<() => void> = []
  let replyFn = reply
  const sockets = new Set<import("node:net").Socket>()
  const server = http.createServer((req, res) => {
    let text = ""
    req.on("data", (c) => (text += c))
    req.on("end", () => {
      let body: unknown = text
      try { body = JSON.parse(text) } catch { /* keep the text */ }
      const r: Received = { method: req.method!, url: req.url!, headers: req.headers, body }
      received.push(r)
      waiters.splice(0).forEach((w) => w())
      const answer = replyFn(r)
      if (answer.destroy) return req.socket.destroy()
      const send = () => { res.writeHead(answer.status ?? 200, { "content-type": "text/plain" }); res.end(answer.body ?? "ok") }
      if (answer.hangMs) setTimeout(() => { if (!res.destroyed) send() }, answer.hangMs).unref()
      else send()
    })
  })
  server.on("connection", (s) => { sockets.add(s); s.on("close", () => sockets.delete(s)) })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    received,
    setReply: (r: Reply) => { replyFn = r },
    /** Resolves when at least `n` requests have arrived (fails after `ms`). */
    waitFor: async (n: number, ms = 10_000) => {
      const deadline = Date.now() + ms
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} requests, got ${received.length}`)
        await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 50).unref() })
      }
      return received
    },
    close: () => new Promise<void>((resolve) => { sockets.forEach((s) => s.destroy()); server.close(() => resolve()) })
  }
}
