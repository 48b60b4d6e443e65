/**
 * The packages as a stranger gets them: `npm pack` of @convene/core and @convene/http, installed into an
 * empty project (dependencies from the registry), then the embedding example and a server run there.
 * better-sqlite3 is installed without its build step and given this repository's compiled binary of the
 * same version (compiling it again would take minutes).
 */
import { execFileSync } from "node:child_process"
import { copyFileSync, cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import t from "tap"

const ROOT = process.cwd()
const npm = (cwd: string, args: ReadonlyArray<string>) =>
  execFileSync("npm", [...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_loglevel: "error" } })

// npm pack and npm install into a new project: 13–16 s on a quiet machine, over 30 s under load
t.setTimeout(120_000)

t.test("@convene/core and @convene/http pack, install into a new project and run there", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "convene-pack-"))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))

  const packed = JSON.parse(npm(ROOT, ["pack", "--json", "-w", "@convene/core", "-w", "@convene/http", "--pack-destination", dir])) as Array<{
    name: string
    filename: string
    files: Array<{ path: string }>
  }>
  for (const p of packed) {
    const paths = p.files.map((f) => f.path)
    t.ok(paths.includes("dist/index.js") && paths.includes("dist/index.d.ts"), `${p.name} ships its build and types`)
    t.ok(paths.includes("LICENSE") && paths.includes("README.md") && paths.includes("package.json"), `${p.name} ships a licence and a README`)
    t.same(paths.filter((f) => /^src\/|\.map$|tsbuildinfo|\.test\./.test(f)), [], `${p.name} ships no sources, maps or tests`)
  }

  const sqliteVersion = (JSON.parse(readFileSync(join(ROOT, "node_modules/better-sqlite3/package.json"), "utf8")) as { version: string }).version
  writeFileSync(join(dir, "package.json"), JSON.stringify({
    name: "embedder",
    private: true,
    type: "module",
    dependencies: Object.fromEntries(packed.map((p) => [p.name, `file:./${p.filename}`])),
    overrides: { "better-sqlite3": sqliteVersion }
  }))
  npm(dir, ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund"])
  cpSync(join(ROOT, "node_modules/better-sqlite3/build"), join(dir, "node_modules/better-sqlite3/build"), { recursive: true })

  // the embedding example, unchanged, from the installed packages
  copyFileSync(join(ROOT, "examples/embed/index.mjs"), join(dir, "embed.mjs"))
  const embedded = execFileSync(process.execPath, ["embed.mjs"], { cwd: dir, encoding: "utf8" })
  t.match(embedded, /Board has 3 members/)
  t.match(embedded, /Outcome: Adopted\./)

  // a server from the installed @convene/http answers, with the installed core's rules
  writeFileSync(join(dir, "serve.mjs"), `
    import { makeConvene } from "@convene/core"
    import { settingsFromEnv, startServer } from "@convene/http"
    const convene = makeConvene({ filename: ":memory:" })
    const { apiKey } = await convene.users.create({ email: "ada@example.org", name: "Ada" })
    const settings = settingsFromEnv({}, { host: "127.0.0.1", port: 0 })
    const server = await startServer({ store: convene.store, settings, host: "127.0.0.1", port: 0 })
    const health = await fetch(server.url + "/healthz").then((r) => r.json())
    const groups = await fetch(server.url + "/api/b2/groups", { headers: { authorization: "Bearer " + apiKey } })
    const anonymous = await fetch(server.url + "/api/b2/groups")
    const page = await fetch(server.url + "/sign-in")
    const pageText = await page.text()
    console.log(JSON.stringify({ health, groups: groups.status, anonymous: anonymous.status, page: page.status, form: pageText.includes("<form") }))
    await server.close()
    await convene.close()
  `)
  const served = JSON.parse(execFileSync(process.execPath, ["serve.mjs"], { cwd: dir, encoding: "utf8" }))
  // a page is served too, without @effect/platform-node (not a dependency: the pages run on node:http, serve.ts)
  t.same(served, { health: { ok: true }, groups: 200, anonymous: 403, page: 200, form: true })

  // heavy libraries load on first use: with them missing, the core still imports and works until a body needs them
  const heavy = ["markdown-it", "sanitize-html", "turndown"]
  for (const m of heavy) renameSync(join(dir, "node_modules", m), join(dir, "node_modules", `${m}.away`))
  const withoutHeavy = execFileSync(process.execPath, ["--input-type=module", "-e", `
    import { makeConvene } from "@convene/core"
    const convene = makeConvene({ filename: ":memory:" })
    const { user } = await convene.users.create({ email: "ada@example.org", name: "Ada" })
    const { group } = await convene.groups.create({ name: "Board", owner: user })
    const plain = await convene.as(user).startDiscussion({ group_id: group.id, title: "Plain", description: "markdown is stored as written" })
    const html = await convene.as(user).startDiscussion({ group_id: group.id, title: "Rich", description: "<b>hi</b>", description_format: "html" })
      .then(() => "stored", (e) => /Cannot find module 'sanitize-html'/.test(String(e.message ?? e)) ? "needs sanitize-html" : String(e))
    console.log(JSON.stringify({ plain: plain.discussion.title, html }))
    await convene.close()
  `], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
  t.same(JSON.parse(withoutHeavy), { plain: "Plain", html: "needs sanitize-html" }, "only an HTML body reaches for sanitize-html")
  for (const m of heavy) renameSync(join(dir, "node_modules", `${m}.away`), join(dir, "node_modules", m))
})

t.test("the licence is the whole AGPL-3.0 text, at the root and in every package", async (t) => {
  const root = readFileSync(join(ROOT, "LICENSE"), "utf8")
  t.match(root, /^GNU AFFERO GENERAL PUBLIC LICENSE\nVersion 3, 19 November 2007\n/, "its title and version")
  for (const section of ["0. Definitions.", "13. Remote Network Interaction; Use with the GNU General Public License.", "17. Interpretation of Sections 15 and 16.", "END OF TERMS AND CONDITIONS"]) {
    t.ok(root.includes(section), `it holds "${section}"`)
  }
  t.ok(root.length > 30_000, `the whole text (${root.length} characters), not a notice`)
  for (const p of ["core", "http", "cli"]) t.equal(readFileSync(join(ROOT, "packages", p, "LICENSE"), "utf8"), root, `@convene/${p} ships the same text`)
  t.equal((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { license: string }).license, "AGPL-3.0-only")
})
