/**
 * What the browser tests share: a test server whose mail goes to a real SMTP server, and Debian's chromium
 * (playwright-core) with the flags a root, sandboxed, offline machine needs (no background traffic, no GPU).
 * Everything stops when the test file ends.
 */
import { mailSettingsFromEnv, startMailWorker } from "@convene/http"
import { type Browser, chromium } from "playwright-core"
import t from "tap"
import { startTestServer, type TestServer } from "./helpers.js"
import { startSmtp, type TestSmtp } from "./smtp.js"

export const BASE = "http://convene.test"

export const startBrowsing = async (): Promise<{ s: TestServer; smtp: TestSmtp; browser: Browser }> => {
  const smtp = await startSmtp()
  const s = await startTestServer({ baseUrl: BASE })
  const worker = startMailWorker({ store: s.convene.store, settings: mailSettingsFromEnv({ SMTP_URL: smtp.url }, BASE, 2000)!, baseUrl: BASE, pollMs: 20 })
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
  })
  t.teardown(async () => {
    await browser.close()
    await worker.stop()
    await s.close()
    await smtp.close()
  })
  return { s, smtp, browser }
}
