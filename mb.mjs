import { makeConvene, Discussions, Auth, loadAccess } from "@convene/core"
import { Effect } from "effect"
const c = makeConvene({ filename: "/tmp/prof/p.db" })
const key = JSON.parse((await import("node:fs")).readFileSync("/tmp/prof/seed.json", "utf8")).apiKey
const N = 20000
const bench = async (name, eff) => { for (let i = 0; i < 2000; i++) await c.run(eff); const t = performance.now(); for (let i = 0; i < N; i++) await c.run(eff); console.log(name.padEnd(30), ((performance.now() - t) * 1000 / N).toFixed(1), "µs/op") }
await bench("Effect.void", Effect.void)
await bench("authenticate", Auth.authenticate(key))
const user = await c.authenticate(key)
await bench("loadAccess", loadAccess(user))
await bench("auth+access+show", Effect.flatMap(Effect.flatMap(Auth.authenticate(key), loadAccess), (a) => Discussions.showDiscussion(a, "1")))
await c.close()
