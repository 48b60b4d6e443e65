/**
 * `node bench/purge.js`: purging a deleted group of 10,000 threads (decisions §12: "purges in batches without holding
 * writes for more than 100 ms at a time"), measured as the writes of another group see it. A writer posts a comment
 * every 5 ms in a group that stays, first alone (the bare baseline: the same writes, nothing purged), then while the
 * scheduler's purge runs; the figures are each write's wait, so a batch that held the writer longer shows as a long
 * write. Both run in one process on one SQLite file, as `convene serve` does.
 *
 *   BENCH_PURGE_THREADS=10000  BENCH_PURGE_COMMENTS=3 (per thread)  BENCH_PURGE_BASELINE_SECONDS=3
 *
 * Results go to bench/results/purge.json.
 */
import { Comments, Discussions, GroupDeletion, loadAccess, makeConvene, Store } from "@convene/core"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const THREADS = Number(process.env.BENCH_PURGE_THREADS ?? 10_000)
const COMMENTS = Number(process.env.BENCH_PURGE_COMMENTS ?? 3)
const BASELINE_SECONDS = Number(process.env.BENCH_PURGE_BASELINE_SECONDS ?? 3)
const WRITE_EVERY_MS = 5

const quantile = (xs, q) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
}
const summary = (waits) => ({ writes: waits.length, p50Ms: +quantile(waits, 0.5).toFixed(1), p99Ms: +quantile(waits, 0.99).toFixed(1), maxMs: +Math.max(...waits).toFixed(1) })

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "convene-bench-purge-"))
  const c = makeConvene({ filename: join(dir, "bench.db") })
  try {
    const owner = await c.users.create({ email: "bench@example.org", name: "Bench Owner" })
    const doomed = (await c.groups.create({ name: "Doomed", owner: owner.user })).group
    const alive = (await c.groups.create({ name: "Alive", owner: owner.user })).group
    const batch = (work) => c.run(Effect.flatMap(Store, (store) => store.transaction(work)))
    const t0 = performance.now()
    for (let done = 0; done < THREADS; done += 500) {
      await batch(Effect.gen(function*() {
        const access = yield* loadAccess(owner.user)
        for (let i = done; i < Math.min(THREADS, done + 500); i++) {
          const { discussion } = yield* Discussions.createDiscussion(access, { group_id: doomed.id, title: `Thread ${i}`, description: `About item ${i}.` })
          for (let k = 0; k < COMMENTS; k++) yield* Comments.createComment(access, discussion.id, { body: `Comment ${k} on ${i}: some words.` })
        }
      }))
    }
    const here_ = await c.run(Effect.gen(function*() {
      return (yield* Discussions.createDiscussion(yield* loadAccess(owner.user), { group_id: alive.id, title: "Still here" })).discussion
    }))
    console.log(`Seeded ${THREADS} threads of ${COMMENTS} comments in ${((performance.now() - t0) / 1000).toFixed(1)} s`)

    // deleted 15 days ago: due for purging
    const access = await c.run(loadAccess(owner.user))
    await c.run(GroupDeletion.deleteGroup(access, doomed.key))
    await c.run(Effect.flatMap(Store, (store) => store.transaction(Effect.asVoid(store.groups.setArchived([doomed.id], new Date(Date.now() - 15 * 86_400_000).toISOString(), new Date().toISOString())))))

    /** Posts a comment every 5 ms until `stop` resolves; each write's wait, from when it was due to when it was written. */
    const writer = async (until) => {
      const waits = []
      let running = true
      until.then(() => { running = false })
      while (running) {
        const due = performance.now()
        await c.run(Comments.createComment(access, here_.id, { body: "A comment while the purge runs." }))
        waits.push(performance.now() - due)
        await new Promise((r) => setTimeout(r, WRITE_EVERY_MS))
      }
      return waits
    }
    const baseline = await writer(new Promise((r) => setTimeout(r, BASELINE_SECONDS * 1000)))
    let purgeMs = 0
    const purging = (async () => {
      // the writer's first write goes first
      await new Promise((r) => setTimeout(r, 20))
      const start = performance.now()
      const purged = await c.run(GroupDeletion.purgeDeletedGroups)
      purgeMs = performance.now() - start
      return purged
    })()
    const during = await writer(purging)
    const purged = await purging
    const left = await c.run(Effect.flatMap(Store, (store) => store.groups.byId(doomed.id)))
    if (purged !== 1 || left !== undefined) throw new Error("the group was not purged")
    const result = {
      threads: THREADS,
      commentsPerThread: COMMENTS,
      purgeSeconds: +(purgeMs / 1000).toFixed(2),
      baseline: summary(baseline),
      duringPurge: summary(during),
      p99Ratio: +(quantile(during, 0.99) / quantile(baseline, 0.99)).toFixed(2)
    }
    console.log(`Purged ${THREADS} threads in ${result.purgeSeconds} s. A writer alone: p50 ${result.baseline.p50Ms} ms, p99 ${result.baseline.p99Ms} ms, max ${result.baseline.maxMs} ms; ` +
      `during the purge: p50 ${result.duringPurge.p50Ms} ms, p99 ${result.duringPurge.p99Ms} ms, max ${result.duringPurge.maxMs} ms (${result.duringPurge.writes} writes; p99 ratio ${result.p99Ratio})`)
    mkdirSync(join(here, "results"), { recursive: true })
    writeFileSync(join(here, "results", "purge.json"), JSON.stringify({ date: new Date().toISOString(), cpus: cpus().length, ...result }, null, 2))
  } finally {
    await c.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
