/**
 * What the benchmark drivers share: each server (convene or a bare baseline) runs in a child process of
 * its own and reports its URL over IPC; requests carry a bearer key; autocannon measures after a warm-up.
 */
import autocannon from "autocannon"
import { fork } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))

/** Forks bench/<script> on the database file and waits for the URL it reports: `{ name, url, child }`. */
export const startServer = (name, script, filename, execArgv = []) =>
  new Promise((resolve, reject) => {
    const child = fork(join(here, script), [filename], { execArgv })
    child.once("message", (m) => resolve({ name, url: m.url, child }))
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code} before listening`)))
  })

/** Asks a server to stop and waits until its process has exited. */
export const stopServer = (s) =>
  new Promise((resolve) => {
    if (s.child.exitCode !== null) return resolve()
    s.child.once("exit", () => resolve())
    s.child.send("stop")
  })

/** GET with a bearer key; anything but 200 is an error (a benchmark of failures measures nothing). */
export const getBody = async (url, apiKey) => {
  const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`)
  return text
}

/** autocannon on one URL: a warm-up, then the measured run; errors, timeouts or non-2xx answers fail it. */
export const measure = async (url, apiKey, { connections, warmup, seconds }) => {
  const run = (duration) => autocannon({ url, duration, connections, headers: { authorization: `Bearer ${apiKey}` } })
  if (warmup > 0) await run(warmup)
  const r = await run(seconds)
  if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`GET ${url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`)
  return { reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, requests: r.requests.total }
}

/**
 * A temporary database with one person (Ada), one group with `members` more people, and one short thread:
 * what the light benchmarks read; with `groups` > 1, Ada owns that many groups in all. `{ dir, filename, apiKey, group, discussion }`; remove `dir` when done.
 */
export const seedOneThread = async (name, { members = 0, groups = 1, database } = {}) => {
  const { openConvene } = await import("@convene/core")
  const { mkdtempSync } = await import("node:fs")
  const { tmpdir } = await import("node:os")
  const dir = mkdtempSync(join(tmpdir(), `convene-${name}-bench-`))
  // a postgres:// URL when given, else a file in the new directory
  const filename = database ?? join(dir, "bench.db")
  const seed = await openConvene({ database: filename })
  const { user, apiKey } = await seed.users.create({ email: "ada@example.org", name: "Ada" })
  const { group } = await seed.groups.create({ name: "Bench", owner: user })
  for (let i = 0; i < members; i++) await seed.users.create({ email: `m${i}@example.org`, name: `M${i}` }).then(({ user: u }) => seed.members.add({ group, user: u }))
  const { discussion } = await seed.as(user).startDiscussion({ group_id: group.id, title: "Light read", description: "A short thread." })
  // Ada's other groups (a member of several groups lists them all)
  for (let i = 1; i < groups; i++) await seed.groups.create({ name: `Bench ${i + 1}`, owner: user })
  await seed.close()
  return { dir, filename, apiKey, group, discussion }
}

/** The middle value (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * convene beside its baseline on one target: a warm-up second each, then `rounds` rounds of autocannon at 32
 * connections, the servers' order reversed every other round; the table row of medians and their ratio.
 * `optionsFor(server)` gives autocannon's options (url, headers, requests); an error or non-2xx answer fails it.
 */
export const sideBySide = async (name, [convene, baseline], optionsFor, { rounds, seconds }) => {
  const results = new Map([[convene, { rps: [], p99: [] }], [baseline, { rps: [], p99: [] }]])
  for (const s of [convene, baseline]) await autocannon({ ...optionsFor(s), connections: 32, duration: 1 })
  for (let round = 0; round < rounds; round++) {
    for (const s of round % 2 === 0 ? [convene, baseline] : [baseline, convene]) {
      const r = await autocannon({ ...optionsFor(s), connections: 32, duration: seconds })
      if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${s.name} ${name}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`)
      results.get(s).rps.push(r.requests.average)
      results.get(s).p99.push(r.latency.p99)
    }
  }
  const [c, b] = [results.get(convene), results.get(baseline)]
  return `| ${name} | ${Math.round(median(c.rps))} | ${median(c.p99)} | ${Math.round(median(b.rps))} | ${median(b.p99)} | ${(median(c.rps) / median(b.rps)).toFixed(2)} |`
}

/** Prints the rows of sideBySide as a table and writes it to bench/results/<file>. */
export const writeTable = (file, rows, { rounds, seconds }) => {
  const table = ["| endpoint | convene req/s | convene p99 ms | baseline req/s | baseline p99 ms | ratio |", "|---|---|---|---|---|---|", ...rows].join("\n")
  const how = `${rounds} interleaved rounds of ${seconds} s, 32 connections, medians`
  console.log(`${table}\n(${how})`)
  mkdirSync("bench/results", { recursive: true })
  writeFileSync(`bench/results/${file}`, `${table}\n\n${new Date().toISOString()}: ${how}.\n`)
}
