/**
 * What the browser tests share: a test server whose mail goes to a real SMTP server, and Debian's chromium
 * (playwright-core) with the flags a root, sandboxed, offline machine needs (no background traffic, no GPU).
 * Everything stops when the test file ends.
 */
import { type HttpSettings, mailSettingsFromEnv, startMailWorker } from "@convene/http"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import t, { type Test } from "tap"
import { startTestServer, type TestServer } from "./helpers.js"
import { startSmtp, type TestSmtp } from "./smtp.js"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"

export const BASE = "http://convene.test"

/**
 * `settings` and `port`: a server of other settings (an identity provider), on a port chosen first, when its
 * BASE_URL must be where the browser finds it (a provider sends the browser back to BASE_URL).
 */
export const startBrowsing = async (settings: Partial<HttpSettings> = {}, port?: number): Promise<{ s: TestServer; smtp: TestSmtp; browser: Browser }> => {
  const smtp = await startSmtp()
  const base = settings.baseUrl ?? BASE
  const s = await startTestServer({ baseUrl: base, ...settings }, port === undefined ? {} : { port })
  const worker = startMailWorker({ store: s.convene.store, settings: mailSettingsFromEnv({ SMTP_URL: smtp.url }, base, 2000)!, baseUrl: base, pollMs: 20 })
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    // offline: a name other than this machine's fails at once (a page of the test identity provider imports a web font)
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"]
  })
  t.teardown(async () => {
    await browser.close()
    await worker.stop()
    await s.close()
    await smtp.close()
  })
  return { s, smtp, browser }
}

/** A port nothing listens on now (for a server whose BASE_URL must name its port before it starts). */
export { freePort } from "./ports.js"

/**
 * Signs `email` in by the code its mail carries, through the sign-in forms' own POSTs made in the browser context
 * (its cookies, its CSRF field), then opens home: the server does all it does for a person typing, the browser
 * draws one page instead of three (sign-in pages are the subject of browser.test.ts and people.test.ts).
 */
export const codeSignIn = (s: TestServer, smtp: TestSmtp) => async (context: BrowserContext, email: string): Promise<Page> => {
  const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!
  const form = await context.request.get(`${s.url}/sign-in`)
  const before = smtp.received.length
  const sent = await context.request.post(`${s.url}/sign-in`, { form: { csrf: csrfIn(await form.text()), email } })
  if (sent.status() !== 200) throw new Error(`sign-in of ${email}: ${sent.status()}`)
  // the sign-in code's mail (another mail to the same person, sent by an earlier step, may arrive first)
  const code = /\b(\d{6})\b/.exec((await smtp.mailTo(email, before, (m) => /\b\d{6}\b/.test(m.subject ?? ""))).subject ?? "")![1]!
  const done = await context.request.post(`${s.url}/sign-in/code`, { form: { csrf: csrfIn(await sent.text()), email, code }, maxRedirects: 0 })
  if (done.status() !== 303) throw new Error(`sign-in code of ${email}: ${done.status()}`)
  const page = await context.newPage()
  await page.goto(`${s.url}/`)
  return page
}

/**
 * A form sent in the browser: `action` (a click, a key) submits it; this waits for the page its answer leads to,
 * which must tell `notice` once (decisions §9, amended: a notice is never carried by the URL).
 */
export const submitted = async (page: Page, action: Promise<unknown>, notice: string | RegExp) => {
  const navigated = page.waitForEvent("framenavigated", (frame) => frame === page.mainFrame())
  await action
  await navigated
  await page.waitForLoadState()
  if (/[?&]done=/.test(page.url())) throw new Error(`a notice in the URL: ${page.url()}`)
  await page.getByRole("status").filter({ hasText: notice }).waitFor()
}

/** axe-core itself, put into the page to check (it has no frames to visit). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")
const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

/**
 * A page checked by axe-core against WCAG 2.1 AA (decisions §9), once per state label. What axe checks is the
 * page's markup, the same whichever store is under it: checked on the SQLite pass. axe-core runs in the page as it
 * is, without @axe-core/playwright's builder: the same rules, a seventh of the time (the builder opens a page of its
 * own for each check to join frames these pages do not have).
 */
export const axe = async (t: Test, page: Page, state: string) => {
  if (process.env.CONVENE_TEST_PG !== undefined) return
  t.same(await axeViolations(page), [], `axe: ${state}`)
}

/** What axe-core finds wrong on the page as it is: "rule: the elements". */
export const axeViolations = async (page: Page): Promise<Array<string>> => {
  await page.evaluate(AXE_SOURCE)
  return page.evaluate((tags) =>
    (window as unknown as { axe: { run: (c: Document, o: object) => Promise<{ violations: Array<{ id: string; nodes: Array<{ target: Array<string> }> }> }> } }).axe
      .run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] })
      .then((r) => r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)), WCAG_21_AA)
}
