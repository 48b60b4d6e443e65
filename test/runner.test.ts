/**
 * The test runner fails closed: a CONVENE_TEST_STORES that names no store is refused (never a quiet skip of the
 * PostgreSQL pass), compiled tests older than a source are refused (never a run against a stale build), and CI's
 * closing line says "failed" when npm test dies before its summary. Each runs the real script in a throw-away tree.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
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

/** The suite's own sources: what the guards below read. */
const suiteSources = () =>
  [join(process.cwd(), "test"), ...readdirSync(join(process.cwd(), "packages")).map((p) => join(process.cwd(), "packages", p, "test"))]
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => join(dir, f)))
const where = (file: string, src: string, index: number) => `${file.slice(process.cwd().length + 1)}:${src.slice(0, index).split("\n").length}`

/**
 * Where a call's second argument holds an array literal, at any depth: its text is walked minding strings, template
 * literals and regular expressions (a `[` in /[a-z]/ is no array), and a `[` that starts a value (after `(`, `:`,
 * `,`, `[` or `=>`) is an array. An index (`rows[0]`) follows a name or a bracket and is not one.
 */
const arraysInSecondArgument = (src: string, from: number): boolean => {
  let depth = 0
  let i = from
  let second = false
  let previous = "("
  const closing: Array<string> = []
  for (; i < src.length; i++) {
    const c = src[i]!
    if (/\s/.test(c)) continue
    if (c === "\"" || c === "'" || c === "`") {
      for (i++; i < src.length && src[i] !== c; i++) if (src[i] === "\\") i++
      previous = "x"
      continue
    }
    if (c === "/" && "(:,[=!&|?{}".includes(previous) && src[i + 1] !== "/" && src[i + 1] !== "*") {
      let inClass = false
      for (i++; i < src.length; i++) {
        const r = src[i]!
        if (r === "\\") i++
        else if (r === "[") inClass = true
        else if (r === "]") inClass = false
        else if (r === "/" && !inClass) break
      }
      previous = "x"
      continue
    }
    if (c === "/" && src[i + 1] === "/") {
      while (i < src.length && src[i] !== "\n") i++
      continue
    }
    if ("([{".includes(c)) {
      if (c === "[" && second && (depth > 0 || closing.length === 0) && "(:,[>".includes(previous)) return true
      depth++
      closing.push(c)
    } else if (")]}".includes(c)) {
      depth--
      closing.pop()
      if (depth < 0) return false
    } else if (c === "," && depth === 0) {
      if (second) return false
      second = true
    }
    previous = c
  }
  return false
}

t.test("no assertion of the suite matches an array by its prefix (tap's t.match with an array anywhere in its pattern)", async (t) => {
  const files = suiteSources()
  const offenders: Array<string> = []
  for (const file of files) {
    const src = readFileSync(file, "utf8")
    for (const m of src.matchAll(/\bt\.match\(/g)) if (arraysInSecondArgument(src, m.index + m[0].length)) offenders.push(where(file, src, m.index))
  }
  t.ok(files.length > 60, `the suite's ${files.length} files were read`)
  t.same(offenders, [], "use matchExact (match.ts) or t.same: t.match takes [a, b] as a prefix, at any depth, so extra rows pass")
})

t.test("the guard finds an array at any depth of a pattern, and nothing else", async (t) => {
  const found = (call: string) => arraysInSecondArgument(call, call.indexOf("(") + 1)
  for (const call of ["match(x, [1])", "match(x, { a: [] })", "match(x, { a: { b: [1, 2] } })", "match(x, { a: 1, b: [/x/] })", "match(x, new Map([[1, 2]]))"]) t.ok(found(call), call)
  for (const call of ["match(rows[0], { a: 1 })", "match(x, /[a-z]+/)", "match(x, { a: \"[1]\" })", "match(x, { a: rows[0] })", "match(f([1]), { a: 1 })", "match(x, `${y[0]}`)", "match(x, { a: 1 }, \"[array]\")"]) t.notOk(found(call), call)
})

/**
 * A literal date in a test is one the clock will pass: sent to the server as a future date, it fails that day. Dates
 * in tests are relative to the clock (helpers.ts: future, nextYear), or in the past where the test holds its own
 * clock (TestClock, a pure function given its "now").
 */
/** The dates written in `src` that are later than `today` (a date-time's date too, followed by its time). */
const laterDates = (src: string, today: string) =>
  [...src.matchAll(/(?<!\d)(\d{4})-([01]\d)-([0-3]\d)(?!\d)/g)].filter((m) => m[0] > today)

t.test("no test source holds a literal date later than today", async (t) => {
  const today = new Date().toISOString().slice(0, 10)
  // written in pieces, so that this file holds no such date itself
  const sample = ["closing_at: \"20", "31-05-06T10:00\", review_on: '20", "30-01-01', 20310506, 2019-01-01"].join("")
  t.same(laterDates(sample, "2025-01-01").map((m) => m[0]), ["20" + "31-05-06", "20" + "30-01-01"], "the guard sees dates and date-times")
  const later: Array<string> = []
  for (const file of suiteSources()) {
    const src = readFileSync(file, "utf8")
    for (const m of laterDates(src, today)) later.push(`${where(file, src, m.index)} ${m[0]}`)
  }
  t.same(later, [], "write it relative to the clock (helpers.ts: future, nextYear) or in the past under a test clock")
})
