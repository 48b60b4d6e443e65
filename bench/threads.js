/**
 * `node bench/threads.js`: the thread endpoints at scale, convene beside a bare node:http + better-sqlite3
 * baseline (bench/threads-baseline.js) that answers the same JSON (asserted before measuring):
 *
 *   GET /api/b2/threads/{id}/markdown   a thread of 2,000 comments (a fifth of them replies, 200 reactions)
 *   GET /api/b2/threads/{id}/items      the same thread: 2,001 items with comments, reactions and users side-loaded
 *   GET /api/b2/discussions?group_id=   a group with 10,000 discussions (first page of 50, meta.total)
 *
 *   BENCH_SECONDS=10  BENCH_WARMUP_SECONDS=2  BENCH_CONNECTIONS=8
 *   BENCH_THREAD_COMMENTS=2000  BENCH_GROUP_DISCUSSIONS=10000   (50 and 50: the light variant, a thread of 50 comments and a
 *   page of 50 discussions)
 *
 * The convene server is bench/convene-server.js (shared with bench/run.js); each server runs in its own
 * child process, autocannon here. Results go to bench/results/threads.json.
 */
import { Comments, Discussions, loadAccess, makeConvene, Reactions, Store } from "@convene/core"
import { getBody, measure, startServer, stopServer } from "./harness.js"
import { Effect } from "effect"
import { deepStrictEqual } from "node:assert"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 2)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8)

const COMMENTS = Number(process.env.BENCH_THREAD_COMMENTS ?? 2_000)
const DISCUSSIONS = Number(process.env.BENCH_GROUP_DISCUSSIONS ?? 10_000)
const AUTHORS = 40

/** Seeds through the core use cases (each batch in one outer transaction, which the use cases join). */
export const seed = async (filename) => {
  const c = makeConvene({ filename })
  try {
    const owner = await c.users.create({ email: "bench@example.org", name: "Bench Owner" })
    const authors = []
    for (let i = 0; i < AUTHORS; i++) authors.push((await c.users.create({ email: `author${i}@example.org`, name: `Author ${i}` })).user)
    const threadGroup = (await c.groups.create({ name: "Thread group", owner: owner.user })).group
    const bigGroup = (await c.groups.create({ name: "Big group", owner: owner.user, public: true })).group
    for (const user of authors) {
      await c.members.add({ group: threadGroup, user })
      await c.members.add({ group: bigGroup, user })
    }
    const batch = (work) => c.run(Effect.flatMap(Store, (store) => store.transaction(work)))
    const accessOf = (user) => loadAccess(user)

    const thread = await batch(Effect.gen(function*() {
      const ownerAccess = yield* accessOf(owner.user)
      const view = yield* Discussions.createDiscussion(ownerAccess, {
        group_id: threadGroup.id,
        title: "A long thread",
        description: "# Purpose\n\nA thread of two thousand comments, for the benchmark.\n\n## Rules\n\nBe kind."
      })
      const accesses = []
      for (const a of authors) accesses.push(yield* accessOf(a))
      const ids = []
      for (let i = 0; i < COMMENTS; i++) {
        const parent = i % 5 === 4 ? ids[i - 1] : null
        const { comment } = yield* Comments.createComment(accesses[i % AUTHORS], view.discussion.id, {
          body: `Comment ${i}: ${"some thoughtful words ".repeat(1 + (i % 7))}\n\nwith a second paragraph.`,
          ...(parent === null ? {} : { parent_id: parent })
        })
        ids.push(comment.id)
        if (i % 10 === 0) {
          yield* Reactions.addReaction(accesses[(i + 1) % AUTHORS], { reactable_type: "Comment", reactable_id: comment.id, reaction: "👍" })
        }
      }
      return view
    }))

    await batch(Effect.gen(function*() {
      const accesses = []
      for (const a of authors) accesses.push(yield* accessOf(a))
      for (let i = 0; i < DISCUSSIONS; i++) {
        const { discussion } = yield* Discussions.createDiscussion(accesses[i % AUTHORS], {
          group_id: bigGroup.id,
          title: `Discussion ${i}`,
          description: `About item ${i}.`
        })
        if (i % 10 === 0) yield* Discussions.setClosed(accesses[i % AUTHORS], String(discussion.id), true)
      }
    }))
    return { apiKey: owner.apiKey, topicId: thread.topic.id, bigGroupId: bigGroup.id }
  } finally {
    await c.close()
  }
}

const figures = (server, path, apiKey) =>
  measure(server.url + path, apiKey, { connections: CONNECTIONS, warmup: WARMUP, seconds: SECONDS })

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "convene-bench-threads-"))
  const filename = join(dir, "bench.db")
  const servers = []
  try {
    const t0 = performance.now()
    const data = await seed(filename)
    console.log(`Seeded a ${COMMENTS}-comment thread and a ${DISCUSSIONS}-discussion group in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    servers.push(await startServer("convene", "convene-server.js", filename), await startServer("baseline", "threads-baseline.js", filename))
    const [convene, baseline] = servers
    const endpoints = [
      `/api/b2/threads/${data.topicId}/markdown`,
      `/api/b2/threads/${data.topicId}/items`,
      `/api/b2/discussions?group_id=${data.bigGroupId}`
    ]
    const results = []
    for (const path of endpoints) {
      const [a, b] = await Promise.all([getBody(convene.url + path, data.apiKey), getBody(baseline.url + path, data.apiKey)])
      deepStrictEqual(JSON.parse(b), JSON.parse(a), `the baseline must answer what convene answers for ${path}`)
      const c = await figures(convene, path, data.apiKey)
      const bl = await figures(baseline, path, data.apiKey)
      results.push({ endpoint: `GET ${path}`, responseBytes: a.length, convene: c, baseline: bl, ratio: c.reqPerSec / bl.reqPerSec })
      console.log(`GET ${path} (${a.length} bytes, same JSON): convene ${c.reqPerSec.toFixed(0)} req/s p99 ${c.p99Ms} ms; ` +
        `baseline ${bl.reqPerSec.toFixed(0)} req/s p99 ${bl.p99Ms} ms; ratio ${(c.reqPerSec / bl.reqPerSec).toFixed(2)}`)
    }
    mkdirSync(join(here, "results"), { recursive: true })
    writeFileSync(join(here, "results", "threads.json"), JSON.stringify({
      date: new Date().toISOString(),
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model,
      loadAverage: loadavg()[0],
      connections: CONNECTIONS,
      warmupSeconds: WARMUP,
      seconds: SECONDS,
      dataset: { threadComments: COMMENTS, groupDiscussions: DISCUSSIONS },
      results
    }, null, 2) + "\n")
  } finally {
    await Promise.all(servers.map(stopServer))
    rmSync(dir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e)
    process.exitCode = 1
  })
}
