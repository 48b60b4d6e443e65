#!/usr/bin/env node
/**
 * npm test's pretest: the Debian packages the tests use, the packages (tsc -b), then the tests compiled afresh into
 * .test-build, and a stamp that says when. run-tests.mjs refuses to run when a source is newer than the stamp, so a
 * test never runs against a stale build.
 */
import { execFileSync } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
const run = (command, args) => {
  try {
    execFileSync(command, args, { stdio: "inherit" })
  } catch (e) {
    // the command said what went wrong on its own streams; no stack of this script's
    process.exit(typeof e.status === "number" && e.status !== 0 ? e.status : 1)
  }
}

run("bash", ["scripts/test-packages.sh"])
run(process.execPath, [tsc, "-b"])
rmSync(".test-build", { recursive: true, force: true })
run(process.execPath, [tsc, "-p", "tsconfig.test.json"])
writeFileSync(".test-build/.built", new Date().toISOString() + "\n")
