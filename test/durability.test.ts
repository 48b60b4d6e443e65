/**
 * No acknowledged write is lost (issue: group commit keeps synchronous = FULL durability): a burst of
 * concurrent writes against the real binary, `kill -9` in the middle, then every write that was answered
 * 2xx is in the database with its thread and thread item, and nothing half-written is. Three times over.
 */
import Database from "better-sqlite3"
import { rmSync } from "node:fs"
import t from "tap"
import { runHere, spawnServe, tempDbFile } from "./helpers.js"

t.test("kill -9 during a burst of concurrent writes loses no acknowledged write", async (t) => {
  const { dir, filename } = tempDbFile()
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let adminKey: string | undefined
  for (let round = 0; round < 3; round++) {
    const s = await spawnServe(filename)
    t.teardown(() => s.stop("SIGKILL"))
    adminKey ??= s.adminKey
    if (round === 0) {
      t.equal((await runHere(["groups", "create", "--name", "Burst", "--owner", "1", "--db", filename])).code, 0)
    }
    const acknowledged: Array<number> = []
    let killed = false
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await fetch(`${s.url}/api/b2/discussions`, {
            method: "POST",
            headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
            body: JSON.stringify({ group_id: 1, title: `round ${round} writer ${w} #${i}` })
          })
          if (res.status === 200) acknowledged.push(((await res.json()) as { discussions: Array<{ id: number }> }).discussions[0]!.id)
        } catch {
          return // the server is gone: this request was never acknowledged
        }
      }
    }
    const writers = Array.from({ length: 32 }, (_, w) => writer(w))
    while (acknowledged.length < 60) await new Promise((r) => setTimeout(r, 5))
    s.child.kill("SIGKILL")
    killed = true
    await Promise.all(writers)
    t.equal(await s.stop(), null, "killed, not exited")

    const db = new Database(filename, { readonly: true })
    const stored = new Set((db.prepare("SELECT id FROM discussions").all() as Array<{ id: number }>).map((r) => r.id))
    const missing = acknowledged.filter((id) => !stored.has(id))
    t.same(missing, [], `round ${round}: all ${acknowledged.length} acknowledged discussions survived`)
    const orphans = db.prepare(`SELECT count(*) AS n FROM discussions d LEFT JOIN topics t ON t.id = d.topic_id
      LEFT JOIN topic_items i ON i.topic_id = t.id WHERE t.id IS NULL OR i.id IS NULL`).get() as { n: number }
    t.equal(orphans.n, 0, "each stored discussion has its thread and thread item: nothing half-written")
    t.equal(db.pragma("integrity_check", { simple: true }), "ok")
    db.close()
  }
})
