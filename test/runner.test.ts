/**
 * The test runner fails closed: a CONVENE_TEST_STORES that names no store is refused (never a quiet skip of the
 * PostgreSQL pass), compiled tests older than a source are refused (never a run against a stale build), and CI's
 * closing line says "failed" when npm test dies before its summary. Each runs the real script in a throw-away tree.
 */
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t, { type Test } from "tap"

const RUNNER = join(process.cwd(), "scripts/run-tests.mjs")
const CI_TEST = join(process.cwd(), "scripts/ci-test.sh")

const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string | undefined> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_OPTIONS" && !k.startsWith("_TAPJS_") && k !== "CONVENE_TEST_STORES" && k !== "CONVENE_TEST_PG"))
    const merged = Object.fromEntries(Object.entries({ ...clean, ...env }).filter((e): e is [string, string] => e[1] !== undefined))
    execFile(command, [...args], { cwd, env: merged }, (err, stdout, stderr) =>
      resolve({ code: err === null ? 0 : typeof err.code === "number" ? err.code : -1, stdout, stderr }))
  })

/** A tree shaped like the repository's: one source, one compiled test that passes, and the build stamp. */
const tree = (t: Test) => {
  const dir = mkdtempSync(join(tmpdir(), "convene-runner-"))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, "packages/core/src"), { recursive: true })
  mkdirSync(join(dir, "test"))
  mkdirSync(join(dir, ".test-build/packages/core/test"), { recursive: true })
  writeFileSync(join(dir, "packages/core/src/a.ts"), "export const a = 1\n")
  writeFileSync(join(dir, "test/a.test.ts"), "")
  writeFileSync(join(dir, ".test-build/packages/core/test/a.test.js"), `console.log("ok 1 - a\\n1..1\\n# { total: 1, pass: 1 }")\n`)
  const old = new Date(Date.now() - 60_000)
  for (const f of ["packages/core/src/a.ts", "test/a.test.ts"]) utimesSync(join(dir, f), old, old)
  writeFileSync(join(dir, ".test-build/.built"), "")
  const built = new Date(Date.now() - 30_000)
  utimesSync(join(dir, ".test-build/.built"), built, built)
  return dir
}

t.test("a fresh build runs, and the summary names the stores", async (t) => {
  const r = await run(process.execPath, [RUNNER], tree(t), { CONVENE_TEST_STORES: "sqlite" })
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /^ok 1 - \.test-build\/packages\/core\/test\/a\.test\.js/m)
  t.match(r.stdout, /^# \{ total: 1, pass: 1 \}$/m)
  t.match(r.stdout, /stores: sqlite$/m)
})

t.test("CONVENE_TEST_STORES with a typo, or empty, is refused", async (t) => {
  const dir = tree(t)
  for (const value of ["sqlit", "", "sqlite,postgress", "sqlite,"]) {
    const r = await run(process.execPath, [RUNNER], dir, { CONVENE_TEST_STORES: value })
    t.equal(r.code, 2, `CONVENE_TEST_STORES=${JSON.stringify(value)} exits 2`)
    t.match(r.stderr, /is not a store; use a comma-separated list of sqlite, postgres/)
    t.notMatch(r.stdout, /# \{ total/, "and runs nothing")
  }
})

t.test("a source newer than the compiled tests is refused, as is a tree never compiled", async (t) => {
  const dir = tree(t)
  writeFileSync(join(dir, "packages/core/src/a.ts"), "export const a = 2\n")
  const stale = await run(process.execPath, [RUNNER], dir, { CONVENE_TEST_STORES: "sqlite" })
  t.equal(stale.code, 1)
  t.match(stale.stderr, /the compiled tests are older than packages\/core\/src\/a\.ts: run `npm test`/)
  t.notMatch(stale.stdout, /^ok/m, "no test ran")
  rmSync(join(dir, ".test-build/.built"))
  const never = await run(process.execPath, [RUNNER], dir, { CONVENE_TEST_STORES: "sqlite" })
  t.equal(never.code, 1)
  t.match(never.stderr, /no compiled tests: run `npm test`/)
})

t.test("CI's closing line: the counts, or that npm test failed before its summary", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "convene-ci-"))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const pkg = (test: string) => writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", private: true, scripts: { test } }))
  pkg(`echo '# { total: 7, pass: 6, fail: 1 }'; exit 1`)
  const failed = await run("bash", [CI_TEST], dir)
  t.equal(failed.code, 1)
  t.match(failed.stdout, /^tests: 6 passed, 1 failed$/m)
  pkg(`echo '# { total: 3, pass: 3 }'`)
  const passed = await run("bash", [CI_TEST], dir)
  t.equal(passed.code, 0)
  t.match(passed.stdout, /^tests: 3 passed, 0 failed$/m)
  pkg(`echo 'error TS2322: broken'; exit 2`)
  const died = await run("bash", [CI_TEST], dir)
  t.equal(died.code, 2, "the exit of npm test is kept")
  t.match(died.stdout, /^tests: npm test failed before its summary \(exit 2\)$/m)
  t.notMatch(died.stdout, /passed/, "no count that reads as a pass")
  pkg(`echo nothing`)
  const silent = await run("bash", [CI_TEST], dir)
  t.equal(silent.code, 1, "no summary is a failure even when npm test exits 0")
})

t.test("no assertion of the suite matches an array by its prefix (tap's t.match with an array pattern)", async (t) => {
  const files = [join(process.cwd(), "test"), join(process.cwd(), "packages/core/test")]
    .flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => join(dir, f)))
  const offenders: Array<string> = []
  for (const file of files) {
    const src = readFileSync(file, "utf8")
    for (const m of src.matchAll(/\bt\.match\(/g)) {
      // the call's second argument: skip the first one, minding brackets and strings
      let depth = 0
      let quote: string | undefined
      let i = m.index + m[0].length
      for (; i < src.length; i++) {
        const c = src[i]!
        if (quote !== undefined) {
          if (c === "\\") i++
          else if (c === quote) quote = undefined
        } else if (c === "\"" || c === "'" || c === "`") quote = c
        else if ("([{".includes(c)) depth++
        else if (")]}".includes(c)) depth--
        else if (c === "," && depth === 0) break
      }
      if (src.slice(i + 1).trimStart().startsWith("[")) offenders.push(`${file.slice(process.cwd().length + 1)}:${src.slice(0, m.index).split("\n").length}`)
    }
  }
  t.ok(files.length > 30, `the suite's ${files.length} files were read`)
  t.same(offenders, [], "use matchRows (helpers.ts) or t.same: t.match takes [a, b] as a prefix, so extra rows pass")
})
