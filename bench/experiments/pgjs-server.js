/**
 * Child process for bench/experiments/pg-drivers-whole.js: the convene server on PostgreSQL with its store over
 * postgres.js (bench/experiments/pgjs-store.js) instead of node-postgres. `node pgjs-server.js postgres://…`.
 */
import { startServer } from "@convene/http"
import { makePgjsStore } from "./pgjs-store.js"

const url = process.argv[2]
if (url === undefined) throw new Error("usage: pgjs-server.js <postgres:// URL>")
const store = await makePgjsStore(url)
const server = await startServer({
  store,
  port: 0,
  host: "127.0.0.1",
  settings: { b3ApiKey: undefined, baseUrl: "http://127.0.0.1", maxBodyBytes: 1048576, version: "bench" }
})
const stop = async () => {
  await server.close()
  await store.close()
  process.exit(0)
}
process.on("message", (m) => m === "stop" && void stop())
process.on("disconnect", () => void stop())
process.send({ url: server.url })
