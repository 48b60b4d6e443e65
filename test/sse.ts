/** A raw Server-Sent Events client for the tests (GET /live): what came, parsed, and the bytes as they came. */
import * as http from "node:http"

export interface LiveEvent {
  readonly id: number
  readonly event: string
  readonly data: any
}

/** A raw stream: every event as it came, and the text as it came (to assert on bytes, not on a parser's view). */
export const openStream = (base: string, session: string | undefined, headers: Record<string, string> = {}, query = "") =>
  new Promise<{ status: number; events: Array<LiveEvent>; raw: () => string; until: (check: (e: LiveEvent) => boolean, ms?: number) => Promise<LiveEvent>; close: () => void }>((resolve, reject) => {
    const req = http.get(`${base}/live${query}`, { headers: { ...(session === undefined ? {} : { cookie: `convene_session=${session}` }), ...headers } }, (res) => {
      const events: Array<LiveEvent> = []
      let raw = ""
      let buffer = ""
      const waiting: Array<() => void> = []
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        raw += chunk
        buffer += chunk
        let end
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const fields = Object.fromEntries(block.split("\n").filter((l) => !l.startsWith(":") && l.includes(":")).map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]))
          if (fields.event !== undefined) events.push({ id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data ?? "null") })
        }
        for (const w of waiting.splice(0)) w()
      })
      const until = (check: (e: LiveEvent) => boolean, ms = 5_000) =>
        new Promise<LiveEvent>((ok, fail) => {
          const timer = setTimeout(() => fail(new Error(`no such event within ${ms} ms; got ${JSON.stringify(events)}`)), ms)
          const look = () => {
            const found = events.find(check)
            if (found !== undefined) {
              clearTimeout(timer)
              ok(found)
            } else waiting.push(look)
          }
          look()
        })
      resolve({ status: res.statusCode ?? 0, events, raw: () => raw, until, close: () => req.destroy() })
    })
    req.on("error", (e) => (e.message.includes("socket hang up") ? undefined : reject(e)))
  })

