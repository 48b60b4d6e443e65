/**
 * The served OpenAPI documents: valid OpenAPI 3.1 (an OpenAPI 3.1 schema validator on Ajv 2020), clean
 * under redocly's recommended rules, a summary and Loomio's operationId on every operation, servers from
 * BASE_URL, held against a golden copy (UPDATE_GOLDEN=1 rewrites it, so every change shows in review),
 * and usable by a generated client: openapi-typescript types compile a program that reads records.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { Validator } from "@seriousme/openapi-schema-validator"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import openapiTS, { astToString } from "openapi-typescript"
import t from "tap"
import { startTestServer } from "./helpers.js"
import { LOOMIO_OPERATIONS } from "./loomio-contract.js"
import { matchExact } from "./match.js"

const s = await startTestServer()
t.teardown(s.close)
const b2 = (await s.api.get("api/b2/openapi.json")).body as any
const b3 = (await s.api.get("api/b3/openapi.json")).body as any

const operations = (doc: any) =>
  Object.entries<any>(doc.paths).flatMap(([path, methods]) => Object.entries<any>(methods).map(([method, op]) => ({ path, method, op })))

t.test("valid OpenAPI 3.1, lint-clean", async (t) => {
  for (const [name, doc] of [["b2", b2], ["b3", b3]] as const) {
    t.equal(doc.openapi, "3.1.0", name)
    const result = await new Validator().validate(structuredClone(doc))
    t.ok(result.valid, `${name} validates: ${JSON.stringify(result.errors ?? []).slice(0, 500)}`)
    t.notMatch(JSON.stringify(doc), /"\$id"/, `${name}: no schema carries an $id (duplicates break Ajv)`)
    const config = await createConfig({ extends: ["recommended"] })
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: `${name}.json`, config })
    t.same(problems.map((p) => `${p.severity} ${p.ruleId} ${p.message}`), [], `${name}: redocly recommended, no errors or warnings`)
    t.same(doc.servers, [{ url: "http://convene.test", description: "This installation" }], `${name}: servers from BASE_URL`)
  }
})

t.test("every operation: a summary, a unique operationId, Loomio's where Loomio has the operation", async (t) => {
  const all = [...operations(b2), ...operations(b3)]
  for (const { path, method, op } of all) t.ok(typeof op.summary === "string" && op.summary.length > 0, `${method} ${path} has a summary`)
  const ids = all.map((o) => o.op.operationId)
  t.equal(new Set(ids).size, ids.length, "operationIds are unique")
  for (const [method, path, operationId] of LOOMIO_OPERATIONS) {
    const op = (path.startsWith("/api/b3") ? b3 : b2).paths[path]?.[method]
    t.equal(op?.operationId, operationId, `${method} ${path}`)
  }
  t.equal(LOOMIO_OPERATIONS.length, 48, "Loomio's contract has 48 operations")
})

t.test("parameters are typed: integers with bounds, enumerations from the rules", async (t) => {
  const params = (path: string) => Object.fromEntries(b2.paths[path].get.parameters.map((p: any) => [p.name, p]))
  const list = params("/api/b2/discussions")
  t.match(list.group_id, { required: true, schema: { type: "integer" } })
  t.match(list.limit.schema, { type: "integer", minimum: 1, default: 50 })
  t.notOk("maximum" in list.limit.schema, "Loomio's contract sets no maximum page size")
  t.match(list.offset.schema, { type: "integer", minimum: 0 })
  matchExact(t, list.status.schema, { type: "string", enum: ["open", "closed", "all", "unlocked", "locked"] })
  t.ok(list.per && list.from, "the discussion list keeps per/from")
  t.notOk("per" in params("/api/b2/memberships"), "the memberships list does not")
  t.same(params("/api/b2/polls").status.schema.enum, ["active", "closed", "all"])
  t.same(params("/api/b2/reports").section.schema.enum, ["base", "users", "countries"])
  matchExact(t, params("/api/b2/groups").compact.schema, { type: "integer", enum: [1] })
  const poll = b2.components.schemas.Poll
  matchExact(t, poll.properties.poll_type, { enum: ["proposal", "poll", "count", "score", "ranked_choice", "meeting", "dot_vote"] })
  matchExact(t, b2.components.schemas.PollInput.properties.poll_type, { enum: ["proposal", "poll", "count", "score", "ranked_choice", "meeting", "dot_vote"] })
  t.match(b2.components.schemas.MembershipsInput.properties.emails, { type: "array", maxItems: 1000 })
})

/** tap runs every test from the repository root. */
const GOLDEN = join(process.cwd(), "test/golden")

t.test("the documents match the golden copies (UPDATE_GOLDEN=1 rewrites them)", async (t) => {
  for (const [name, doc] of [["openapi-b2.json", b2], ["openapi-b3.json", b3]] as const) {
    const text = JSON.stringify(doc, null, 2) + "\n"
    const file = join(GOLDEN, name)
    if (process.env.UPDATE_GOLDEN === "1") writeFileSync(file, text)
    // a missing copy fails (a test that writes what it compares against cannot fail); UPDATE_GOLDEN=1 makes it
    if (!existsSync(file)) {
      t.fail(`${name} has no golden copy: run UPDATE_GOLDEN=1 npm test, review it and commit it`)
      continue
    }
    t.equal(text, readFileSync(file, "utf8"), `${name} is unchanged (review the diff, then UPDATE_GOLDEN=1 npm test)`)
  }
})

t.test("a client generated with openapi-typescript reads the records", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "convene-client-"))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, "api.d.ts"), astToString(await openapiTS(structuredClone(b2))))
  writeFileSync(join(dir, "client.ts"), `
import type { paths } from "./api.js"
type Discussions = paths["/api/b2/discussions"]["get"]["responses"]["200"]["content"]["application/json"]
type Polls = paths["/api/b2/polls/{id}"]["get"]["responses"]["200"]["content"]["application/json"]
declare const d: Discussions
declare const p: Polls
export const id: number = d.discussions[0]!.id
export const closing: string | null = p.polls[0]!.closing_at
export const name: string = p.poll_options![0]!.name
// @ts-expect-error: a field the records do not have
export const nope = d.discussions[0]!.no_such_field
`)
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2022"], types: [], noUncheckedIndexedAccess: true },
    files: ["client.ts"]
  }))
  const tsc = join(process.cwd(), "node_modules/typescript/bin/tsc")
  // the exit status and both streams: tsc may report on stderr alone (a bad tsconfig, a missing file)
  const compiled = spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" })
  t.equal(compiled.status, 0, "tsc exits 0")
  t.equal(compiled.stdout + compiled.stderr, "", "the generated client type-checks, nothing said on either stream")
})
