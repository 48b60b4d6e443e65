/**
 * One server for bench/observe.js: `node bench/observe-server.js DB on|off`. With `on` it logs every request
 * (pino, JSON lines on stdout) and keeps metrics (prom-client); with `off` it does neither. Prints its URL.
 */
import { makeConvene } from "@convene/core"
import { makeLog, makeMetrics, silentTelemetry, startServer } from "@convene/http"

const [filename, mode] = process.argv.slice(2)
const convene = makeConvene({ filename })
// `log` and `metrics` alone, to see which costs what
const telemetry = mode === "on"
  ? { log: makeLog("info"), metrics: makeMetrics(convene.store) }
  : mode === "log" ? { log: makeLog("info") }
  : mode === "metrics" ? { log: silentTelemetry().log, metrics: makeMetrics(convene.store) }
  : silentTelemetry()
const server = await startServer({
  store: convene.store, port: 0, host: "127.0.0.1", telemetry,
  settings: { b3ApiKey: undefined, baseUrl: "http://convene.test", maxBodyBytes: 1 << 20, version: "bench" }
})
process.stderr.write(`${server.url}\n`)
// bench/memory.js (run with --expose-gc): a full collection on demand, so resident memory is read at the
// same point of V8's cycle each time; "collected" on stderr once it is done
if (typeof globalThis.gc === "function") {
  process.on("SIGUSR2", () => {
    globalThis.gc()
    // with the V8 heap still in use after it: what the process keeps alive (a leak grows it), beside what it has mapped
    setTimeout(() => process.stderr.write(`collected ${process.memoryUsage().heapUsed}\n`), 200)
  })
}
process.on("SIGTERM", () => server.close().then(() => convene.close()).then(() => process.exit(0)))
