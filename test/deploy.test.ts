/**
 * The deploy kit runs what it says (decisions §6): the Dockerfile's CMD and HEALTHCHECK and the systemd
 * unit's ExecStart, each run here as written (with the image's and the unit's paths mapped onto this
 * checkout), start convene, report its health, and stop cleanly on the signal they send. No container
 * engine or systemd runs here, so the images and units themselves are not built or loaded.
 */
import { execFile, spawn } from "node:child_process"
import { readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import t from "tap"
import { childEnv, tempDbFile } from "./helpers.js"

const ROOT = process.cwd()

/** The last value of a Dockerfile instruction (continuation lines joined). */
const dockerfile = readFileSync(join(ROOT, "deploy/Dockerfile"), "utf8").replace(/\\\n\s*/g, " ")
const instructions = (name: string) => dockerfile.split("\n").filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1).trim())
const unit = readFileSync(join(ROOT, "deploy/convene.service"), "utf8")
const unitValues = (key: string) => unit.split("\n").filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1))

interface Started {
  readonly port: number
  readonly exited: Promise<number | null>
  readonly child: ReturnType<typeof spawn>
}

/** Runs argv with env until it says where it listens. */
const start = (argv: ReadonlyArray<string>, env: Record<string, string>): Promise<Started> =>
  new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env: childEnv(env) })
    let out = ""
    let err = ""
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)))
    child.stderr.on("data", (d) => (err += d))
    child.stdout.on("data", (d) => {
      out += d
      const m = /convene listening on http:\/\/[^:]+:(\d+)/.exec(out)
      if (m) resolve({ port: Number(m[1]), exited, child })
    })
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)))
  })

const run = (argv: ReadonlyArray<string>, env: Record<string, string>): Promise<number> =>
  new Promise((resolve) => execFile(argv[0]!, argv.slice(1), { env: childEnv(env) }, (e) => resolve(e === null ? 0 : Number(e.code ?? -1))))

t.test("the Dockerfile's command, health check and stop signal", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const cmd = JSON.parse(instructions("CMD").at(-1)!) as Array<string>
  t.same(cmd, ["node", "packages/cli/bin/convene.js", "serve"], "node itself runs convene, not npm or npx")
  const env = Object.fromEntries(instructions("ENV").join(" ").split(/\s+/).filter((w) => w.includes("=")).map((w) => w.split("=") as [string, string]))
  t.match(env, { CONVENE_DB: "/data/convene.db", HOST: "0.0.0.0", PORT: "3000" })
  t.ok(instructions("VOLUME").some((v) => v.includes("/data")), "the database lives on a volume")
  t.match(instructions("USER").at(-1), "convene", "not root")
  t.equal(instructions("FROM").length, 2, "a build stage and a slim runtime stage")

  const server = await start([process.execPath, ...cmd.slice(1)], { ...env, CONVENE_DB: filename, PORT: "0" })
  t.teardown(() => server.child.kill("SIGKILL"))
  const health = JSON.parse(instructions("HEALTHCHECK").at(-1)!.replace(/^.*?CMD /, "")) as Array<string>
  t.equal(health[0], "node")
  const healthcheck = [process.execPath, ...health.slice(1)]
  t.equal(await run(healthcheck, { PORT: String(server.port) }), 0, "healthy while serving")
  t.equal(instructions("STOPSIGNAL").at(-1), "SIGTERM")
  server.child.kill("SIGTERM")
  t.equal(await server.exited, 0, "stops cleanly on the image's stop signal")
  t.not(await run(healthcheck, { PORT: String(server.port) }), 0, "unhealthy once it is gone")
})

t.test("the systemd unit's ExecStart, environment and hardening", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const execStart = unitValues("ExecStart")[0]!.split(" ")
  t.same(execStart, ["/usr/bin/node", "/opt/convene/packages/cli/bin/convene.js", "serve"], "node itself runs convene, not npx")
  const env = Object.fromEntries(unitValues("Environment").map((e) => e.split("=") as [string, string]))
  t.match(env, { CONVENE_DB: "/var/lib/convene/convene.db", HOST: "127.0.0.1", PORT: "3000" })
  for (const [key, value] of [["Restart", "on-failure"], ["User", "convene"], ["NoNewPrivileges", "true"], ["ProtectSystem", "strict"], ["KillSignal", "SIGTERM"]]) {
    t.same(unitValues(key!), [value], `${key}=${value}`)
  }
  t.same(unitValues("MemoryDenyWriteExecute"), [], "no MemoryDenyWriteExecute: V8 needs it off")

  const argv = [process.execPath, execStart[1]!.replace("/opt/convene", ROOT), ...execStart.slice(2)]
  const server = await start(argv, { ...env, CONVENE_DB: filename, PORT: "0" })
  t.teardown(() => server.child.kill("SIGKILL"))
  t.equal((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status, 200)
  server.child.kill("SIGTERM")
  t.equal(await server.exited, 0, "stops cleanly on the unit's kill signal")
})
