/**
 * Child process: the live pages' baseline. A bare `node:http` server holding Server-Sent Events streams (GET /live)
 * that, on POST /write, appends a row to a SQLite table in a transaction (as convene's write appends its live event)
 * and writes one frame to every open stream: the same fan-out with nothing checked (no session, no rule, no read
 * back). What convene adds over it is the price of those.
 */
import Database from "better-sqlite3"
import * as http from "node:http"

const filename = process.argv[2]
if (filename === undefined) throw new Error("usage: live-baseline.js <database file>")
const db = new Database(filename)
db.pragma("journal_mode = WAL")
db.pragma("synchronous = FULL")
db.exec("CREATE TABLE IF NOT EXISTS bare_events (id INTEGER PRIMARY KEY, created_at TEXT NOT NULL)")
const insert = db.prepare("INSERT INTO bare_events (created_at) VALUES (?) RETURNING id")
const streams = new Set()

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url.startsWith("/live")) {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" })
    res.write("retry: 2000\n\n")
    streams.add(res)
    req.on("close", () => streams.delete(res))
    return
  }
  if (req.method === "POST" && req.url === "/write") {
    req.resume()
    req.on("end", () => {
      const { id } = db.transaction(() => insert.get(new Date().toISOString()))()
      const frame = `id: ${id}\nevent: thread\ndata: {"topic_id":1,"group_id":1}\n\n`
      for (const s of streams) s.write(frame)
      res.writeHead(200, { "content-type": "application/json" }).end(`{"id":${id}}`)
    })
    return
  }
  res.writeHead(404).end()
})
server.listen(0, "127.0.0.1", () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
const stop = () => {
  for (const s of streams) s.end()
  server.close(() => process.exit(0))
}
process.on("message", (m) => m === "stop" && stop())
process.on("disconnect", stop)
