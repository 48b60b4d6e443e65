/**
 * Child process for bench/serving.js: one way of serving a trivial JSON answer (`{"ok":true}` at /healthz).
 *   bare      node:http alone
 *   runtime   node:http, the answer computed by an Effect run on a runtime built once at start
 *   router    @effect/platform's HttpRouter on its Node server (no HttpApi)
 *   handler   the same HttpRouter app through NodeHttpServer.makeHandler on a plain node:http server
 *   httpapi   @effect/platform's HttpApi (HttpApiBuilder), as convene serves today
 */
import * as http from "node:http"

const kind = process.argv[2]
const listen = (server) => server.listen(0, "127.0.0.1", () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
process.on("disconnect", () => process.exit(0))

if (kind === "bare") {
  listen(http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ ok: true }))
  }))
} else if (kind === "runtime") {
  const { Effect, ManagedRuntime, Layer } = await import("effect")
  const runtime = ManagedRuntime.make(Layer.empty)
  const answer = Effect.sync(() => ({ ok: true }))
  listen(http.createServer((req, res) => {
    runtime.runCallback(answer, {
      onExit: (exit) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(exit._tag === "Success" ? exit.value : { ok: false }))
      }
    })
  }))
} else {
  const { Effect, Layer, Schema } = await import("effect")
  const HttpRouter = await import("@effect/platform/HttpRouter")
  const HttpServer = await import("@effect/platform/HttpServer")
  const HttpServerResponse = await import("@effect/platform/HttpServerResponse")
  const NodeHttpServer = await import("@effect/platform-node/NodeHttpServer")
  const server = http.createServer()
  server.on("listening", () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
  const nodeLayer = NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" })
  if (kind === "handler") {
    const app = HttpRouter.empty.pipe(HttpRouter.get("/healthz", Effect.succeed(HttpServerResponse.unsafeJson({ ok: true }))))
    const handler = await Effect.runPromise(NodeHttpServer.makeHandler(app))
    const plain = http.createServer(handler)
    listen(plain)
  } else if (kind === "router") {
    const app = HttpRouter.empty.pipe(HttpRouter.get("/healthz", Effect.succeed(HttpServerResponse.unsafeJson({ ok: true }))))
    Layer.launch(HttpServer.serve(app).pipe(Layer.provide(nodeLayer))).pipe(Effect.runFork)
  } else {
    const { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } = await import("@effect/platform")
    const Api = HttpApi.make("bench").add(HttpApiGroup.make("system").add(HttpApiEndpoint.get("healthz", "/healthz").addSuccess(Schema.Struct({ ok: Schema.Boolean }))))
    const SystemLive = HttpApiBuilder.group(Api, "system", (h) => h.handleRaw("healthz", () => Effect.succeed(HttpServerResponse.unsafeJson({ ok: true }))))
    const ApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(SystemLive))
    Layer.launch(HttpApiBuilder.serve().pipe(Layer.provide(ApiLive), Layer.provide(nodeLayer))).pipe(Effect.runFork)
  }
}
