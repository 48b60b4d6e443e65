/**
 * The driver choice for the PostgreSQL store: node-postgres (`pg`, the store's) beside postgres.js on one point
 * read (a discussion by id, a prepared statement), one at a time on one connection, then 32 at once over a pool
 * of 10, on a throw-away cluster (scripts/pg-cluster.mjs). postgres.js is not a dependency of convene:
 * `npm install --no-save postgres@3 && node bench/experiments/pg-drivers.js`.
 */
import { execFileSync } from "node:child_process"
import pg from "pg"
import { startCluster } from "../../scripts/pg-cluster.mjs"

const { default: postgres } = await import("postgres").catch(() => {
  console.error("postgres.js is not installed: npm install --no-save postgres@3")
  process.exit(1)
})
const N = Number(process.env.BENCH_QUERIES ?? 4000)
const cluster = await startCluster()
process.on("exit", () => cluster.stop())
execFileSync("psql", [`${cluster.url}/postgres`, "-qXc", "CREATE DATABASE bench"])
const url = `${cluster.url}/bench`
execFileSync("psql", [url, "-qXc", "CREATE TABLE discussions (id integer PRIMARY KEY, title text, description text); INSERT INTO discussions VALUES (1, 'Light read', 'A short thread.')"])

const pool = new pg.Pool({ connectionString: url, max: 10 })
const sql = postgres(url, { max: 10 })
const drivers = [
  ["pg", () => pool.query({ name: "d", text: "SELECT * FROM discussions WHERE id = $1", values: [1] })],
  ["postgres.js", () => sql`SELECT * FROM discussions WHERE id = ${1}`]
]
const sequential = async (q) => {
  for (let i = 0; i < 200; i++) await q()
  const t0 = performance.now()
  for (let i = 0; i < N; i++) await q()
  return ((performance.now() - t0) / N) * 1000
}
const concurrent = async (q) => {
  const t0 = performance.now()
  let n = 0
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (n++ < N * 4) await q()
  }))
  return (N * 4) / ((performance.now() - t0) / 1000)
}
const rows = []
for (let round = 0; round < 3; round++) {
  for (const [name, q] of round % 2 === 0 ? drivers : [...drivers].reverse()) rows.push({ round, name, us: await sequential(q), qps: await concurrent(q) })
}
for (const [name] of drivers) {
  const mine = rows.filter((r) => r.name === name)
  console.log(`${name}: one at a time ${mine.map((r) => r.us.toFixed(0)).join(", ")} µs/query; 32 at once ${mine.map((r) => Math.round(r.qps)).join(", ")} queries/s`)
}
await pool.end()
await sql.end()
cluster.stop()
