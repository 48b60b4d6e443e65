/**
 * What one request costs the server's own code, without sockets or a load generator: requests are handed
 * straight to the server's request listener (a fake IncomingMessage and ServerResponse), one after another
 * and 32 at a time, in µs per request. Separates the application's cost from node's HTTP and the client's.
 * `npx tsc -b && node bench/experiments/inproc.js [PATH]` (default: GET /api/b2/discussions/{id} of the light benchmark).
 */
import http from "node:http"
import { syncBuiltinESMExports } from "node:module"
import { EventEmitter } from "node:events"

const create = http.createServer
let server
http.createServer = (...args) => (server = create(...args))
syncBuiltinESMExports()
const { makeConvene } = await import("@convene/core")
const { startServer } = await import("@convene/http")
const { median, seedOneThread } = await import("../harness.js")

const { filename, apiKey, discussion } = await seedOneThread("inproc", { members: 5 })
const c = makeConvene({ filename })
await startServer({ store: c.store, port: 0, host: "127.0.0.1", settings: { baseUrl: "http://127.0.0.1", maxBodyBytes: 1048576, version: "bench" } })
const path = process.argv[2] ?? `/api/b2/discussions/${discussion.id}`

const one = () =>
  new Promise((resolve) => {
    const req = Object.assign(new EventEmitter(), { method: "GET", url: path, headers: { authorization: `Bearer ${apiKey}` }, socket: { remoteAddress: "127.0.0.1" } })
    const headers = {}
    const res = Object.assign(new EventEmitter(), {
      writableEnded: false,
      statusCode: 200,
      setHeader: (k, v) => void (headers[k] = v),
      getHeader: (k) => headers[k],
      writeHead(status) {
        this.statusCode = status
        return this
      },
      end(body) {
        this.writableEnded = true
        this.emit("finish")
        resolve({ status: this.statusCode, body })
      }
    })
    server.emit("request", req, res)
  })

const first = await one()
if (first.status !== 200) throw new Error(`${path} answers ${first.status}: ${first.body}`)
const N = Number(process.env.BENCH_REQUESTS ?? 5000)
const rounds = { sequential: [], concurrent: [] }
for (let round = 0; round < 6; round++) {
  let t = process.hrtime.bigint()
  for (let i = 0; i < N; i++) await one()
  rounds.sequential.push(Number(process.hrtime.bigint() - t) / N / 1000)
  t = process.hrtime.bigint()
  for (let i = 0; i < N / 32; i++) await Promise.all(Array.from({ length: 32 }, one))
  rounds.concurrent.push(Number(process.hrtime.bigint() - t) / N / 1000)
}
console.log(`${path}: ${median(rounds.sequential).toFixed(0)} µs per request one at a time, ${median(rounds.concurrent).toFixed(0)} µs 32 at a time (medians of 6 rounds of ${N})`)
await c.close()
process.exit(0)
