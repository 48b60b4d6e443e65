/**
 * A throw-away PostgreSQL cluster for the tests and benchmarks: Debian's `postgresql` binaries, `initdb` on a
 * temporary data directory, `pg_ctl` on a free port of 127.0.0.1, stopped (and the directory removed) by
 * `stop`. As root, the server runs as the `postgres` user (PostgreSQL refuses to run as root).
 */
import { execFileSync } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"

/** The newest installed server's binaries, or undefined. */
export const pgBin = () => {
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a))
  return versions.length === 0 ? undefined : join(root, versions[0], "bin")
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })

/**
 * Starts a cluster; resolves with its base URL (`postgres://convene@127.0.0.1:PORT`, add `/dbname`) and `stop`.
 * `settings` are server settings (`-c name=value`).
 */
export const startCluster = async (settings = {}) => {
  const bin = pgBin()
  if (bin === undefined) throw new Error("PostgreSQL is not installed: apt-get install postgresql")
  const dir = mkdtempSync(join(tmpdir(), "convene-pg-"))
  const root = userInfo().uid === 0
  // as root: the data directory belongs to postgres, and every server command runs as postgres
  if (root) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString()), Number(execFileSync("id", ["-g", "postgres"]).toString()))
  const as = (cmd, args, opts = {}) =>
    root ? execFileSync("runuser", ["-u", "postgres", "--", join(bin, cmd), ...args], opts) : execFileSync(join(bin, cmd), args, opts)
  const data = join(dir, "data")
  as("initdb", ["-D", data, "-U", "convene", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"], { stdio: "ignore" })
  const port = await freePort()
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    ...Object.entries({ max_connections: "300", ...settings }).map(([k, v]) => `-c ${k}=${v}`)
  ].join(" ")
  as("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"], { stdio: "ignore" })
  const url = `postgres://convene@127.0.0.1:${port}`
  let stopped = false
  return {
    url,
    dir,
    /** Stops the server at once and removes its directory. */
    stop: () => {
      if (stopped) return
      stopped = true
      try {
        as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"], { stdio: "ignore" })
      } catch {
        // already down
      }
      rmSync(dir, { recursive: true, force: true })
    },
    /** Stops the server as a crash would (immediate: no checkpoint, the data stays): the database goes away. */
    down: () => as("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"], { stdio: "ignore" }),
    /** Starts it again on the same port and data. */
    up: () => as("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"], { stdio: "ignore" })
  }
}
