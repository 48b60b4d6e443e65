#!/usr/bin/env node
/**
 * `npm run screenshots`: the README's pictures, taken from the real pages. Starts convene on a throw-away
 * database with a small garden club's decision, signs in through a real SMTP server (smtp-server), and has
 * Debian's chromium (playwright-core) photograph the pages at phone and desktop widths into
 * docs/screenshots/ (PNG).
 */
import { mkdirSync, rmSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { simpleParser } from "mailparser"
import { chromium } from "playwright-core"
import { SMTPServer } from "smtp-server"
import { openConvene } from "@convene/core"
import { mailSettingsFromEnv, startMailWorker, startServer } from "@convene/http"

const OUT = new URL("../docs/screenshots/", import.meta.url).pathname
mkdirSync(OUT, { recursive: true })
const dir = mkdtempSync(join(tmpdir(), "convene-shots-"))

const mails = []
const smtp = new SMTPServer({
  authOptional: true, disabledCommands: ["STARTTLS"], logger: false,
  onData: (stream, _session, done) => simpleParser(stream).then((m) => { mails.push(m); done() }, done)
})
await new Promise((r) => smtp.listen(0, "127.0.0.1", r))
const smtpUrl = `smtp://127.0.0.1:${smtp.server.address().port}`

const convene = await openConvene({ database: join(dir, "shots.db") })
const BASE = "http://convene.example"
const server = await startServer({ store: convene.store, port: 0, host: "127.0.0.1", settings: { baseUrl: BASE, b3ApiKey: "s".repeat(40), maxBodyBytes: 1 << 20, version: "shots" } })
const worker = startMailWorker({ store: convene.store, settings: mailSettingsFromEnv({ SMTP_URL: smtpUrl }, BASE, 2000), baseUrl: BASE, pollMs: 20 })

const ada = await convene.users.create({ email: "ada@example.org", name: "Ada Lovelace" })
const { group } = await convene.groups.create({ name: "Garden Club", owner: ada.user, description: "Our shared allotment: what we grow, when, and who waters." })
for (const [email, name] of [["bea@example.org", "Bea"], ["cy@example.org", "Cy"]]) {
  const { user } = await convene.users.create({ email, name })
  await convene.members.add({ group, user })
}

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] })
const context = await browser.newContext({ viewport: { width: 900, height: 900 }, deviceScaleFactor: 1 })
const page = await context.newPage()
const waitMail = async (to, since) => {
  for (let i = 0; i < 200; i++) {
    const m = mails.slice(since).find((x) => x.to?.text.includes(to))
    if (m) return m
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`no mail to ${to}`)
}
await page.goto(`${server.url}/sign-in`)
await page.getByLabel("E-mail address").fill("ada@example.org")
const since = mails.length
await page.getByRole("button", { name: "Send me a code" }).click()
const code = /\b(\d{6})\b/.exec((await waitMail("ada@example.org", since)).subject)[1]
await page.getByLabel("Code").fill(code)
await page.getByRole("button", { name: "Sign in", exact: true }).click()
await page.waitForURL(`${server.url}/`)

const shot = async (name, width = 900) => {
  await page.setViewportSize({ width, height: 900 })
  await page.screenshot({ path: join(OUT, `${name}.png`), type: "png", fullPage: true })
  console.log(`docs/screenshots/${name}.png`)
}

await page.goto(`${server.url}/g/${group.key}/discussions/new`)
await page.getByLabel("Title").fill("What do we plant first?")
await page.getByLabel("Details").fill("The beds are ready. Beans, tomatoes or **both**?")
await page.getByRole("button", { name: "Start discussion" }).click()
await page.getByLabel("Comment", { exact: true }).fill("Beans fix nitrogen; tomatoes after them.")
await page.getByRole("button", { name: "Post comment" }).last().click()
await page.getByRole("link", { name: "Start a poll" }).click()
await page.getByLabel("Title").fill("Plant beans first?")
await page.getByRole("button", { name: "Start poll" }).click()
await page.waitForURL(/\/p\/[A-Za-z0-9]+$/)
const pollUrl = page.url()
await page.getByLabel("Agree", { exact: true }).check()
await page.getByLabel("Reason (optional)").fill("Good for the soil")
await page.getByRole("button", { name: "Vote", exact: true }).click()
await page.getByRole("status").waitFor()

// running the group (decisions §12): closed, so Bea's friend asks to join; the thread tagged and edited
await page.goto(`${server.url}/g/${group.key}/settings`)
await page.getByLabel("Closed", { exact: true }).check()
await page.getByRole("button", { name: "Save settings" }).click()
await page.getByRole("status").waitFor()
await shot("settings")
const dan = await convene.users.create({ email: "dan@example.org", name: "Dan" })
await fetch(`${server.url}/api/b2/groups/${group.id}/membership_requests`, {
  method: "POST", headers: { authorization: `Bearer ${dan.apiKey}`, "content-type": "application/json" },
  body: JSON.stringify({ introduction: "I live next to the allotment and have a spare water butt." })
})
await page.goto(`${server.url}/g/${group.key}/requests`)
await shot("requests")
await page.goto(`${server.url}/g/${group.key}`)
await page.getByRole("link", { name: "What do we plant first?" }).click()
await page.getByRole("link", { name: "Edit thread" }).click()
await page.getByLabel("Tags").fill("planting, beds")
await page.getByLabel("What's changed? (optional)").fill("Tagged, so we find it in spring.")
await page.getByRole("button", { name: "Save thread" }).click()
await page.getByRole("status").waitFor()
const threadPage = page.url()
await page.getByRole("link", { name: "Show edits" }).click()
await shot("edits")
await page.goto(`${server.url}/g/${group.key}/tags`)
await shot("tags")

await page.goto(`${server.url}/`)
await shot("home")
await page.goto(`${server.url}/g/${group.key}`)
await shot("group")
await page.goto(pollUrl)
await shot("poll", 360)
await page.goto(threadPage)
await shot("thread")

await browser.close()
await worker.stop()
await server.close?.()
await convene.close()
smtp.close()
rmSync(dir, { recursive: true, force: true })
process.exit(0)
