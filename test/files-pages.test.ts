/**
 * Files on the thread page (decisions §14), in a real browser on both stores: "Attach files" on Post comment (the
 * form then goes as multipart), a comment that is only a file, an image shown and a file linked, a download by
 * another member and its refusal to a non-member and to a signed-out visitor, a forged form, and a file over the
 * limit; nothing kept where nothing was posted.
 */
import t from "tap"
import { createHash } from "node:crypto"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"
import { poster, seedUser } from "./helpers.js"

t.setTimeout(180_000)

const LIMIT = 200 * 1024
const { s, smtp, browser } = await startBrowsing({ attachmentMaxBytes: LIMIT })
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
const post = poster(s.as(ada.apiKey))
const group = (await post("api/b2/groups", { name: "Allotment" })).groups[0]
await s.convene.members.add({ group: (await s.convene.groups.list()).find((v) => v.group.id === group.id)!.group, user: bo.user })
const d = (await post("api/b2/discussions", { group_id: group.id, title: "The shed roof", private: true })).discussions[0]
const threadUrl = `${s.url}/d/${d.key}`
// Ada signs in once (sign-in codes are rate limited per address); each test opens a page of that session
const adaSession = (await signIn(await browser.newContext(), "ada@example.org")).context()
const adaPage = () => adaSession.newPage()

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64")
const NOTES = Buffer.from("Felt: 3 rolls\nNails: 2 kg\n")
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex")
const count = async (table: string) => (await s.sql<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n
const received = () => {
  const tmp = join(s.filesDir, "tmp")
  return existsSync(tmp) ? readdirSync(tmp) : []
}

t.test("Attach files on the thread page: an image shown, a file linked, a comment of files alone; downloaded by a member only", async (t) => {
  const page = await adaPage()
  await page.goto(threadUrl)
  await page.getByLabel("Comment", { exact: true }).fill("The roof, and what we need")
  await page.getByLabel("Attach files").setInputFiles([
    { name: "roof.png", mimeType: "image/png", buffer: PNG },
    { name: "shopping list.txt", mimeType: "text/plain", buffer: NOTES }
  ])
  await submitted(page, page.getByRole("button", { name: "Post comment" }).click(), "Your comment is posted.")
  const image = page.locator("ul.files img[alt='roof.png']")
  t.equal(await image.count(), 1, "the image is shown")
  // decode() waits for the image to load (and fails if it cannot), so the check does not race the download
  t.equal(await image.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth, () => 0)), 1, "and loads (the page's own session fetched it)")
  const link = page.getByRole("link", { name: "shopping list.txt" })
  t.equal(await link.count(), 1, "the other file is a link")
  t.match(await page.locator("ul.files").last().textContent(), /shopping list\.txt \(\d+ byte\)/, "with its size")
  const [row] = await s.sql<any>(`SELECT c.body, count(a.id) AS files FROM comments c JOIN attachments a ON a.record_type = 'Comment' AND a.record_id = c.id GROUP BY c.id`)
  t.match(row, { body: "The roof, and what we need", files: 2 })

  // a comment that is only a file
  await page.getByLabel("Attach files").setInputFiles([{ name: "gutter.png", mimeType: "image/png", buffer: PNG }])
  await submitted(page, page.getByRole("button", { name: "Post comment" }).click(), "Your comment is posted.")
  t.equal(await page.locator("ul.files img[alt='gutter.png']").count(), 1, "a comment of a file alone")
  // nothing at all: nothing posted, and said so
  const comments = await count("comments")
  await submitted(page, page.getByRole("button", { name: "Post comment" }).click(), "Write a comment or attach a file: nothing was posted.")
  t.equal(await count("comments"), comments)
  await axe(t, page, "a thread page with files")
  await page.setViewportSize({ width: 360, height: 740 })
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 360, "360 px")

  // Bo, a member, downloads the list; Cy, not a member, and a signed-out visitor are refused
  const href = (await link.getAttribute("href"))!
  const bo = await signIn(await browser.newContext(), "bo@example.org")
  await bo.goto(threadUrl)
  const download = bo.waitForEvent("download")
  await bo.getByRole("link", { name: "shopping list.txt" }).click()
  const file = await download
  t.equal(file.suggestedFilename(), "shopping list.txt")
  const { readFile } = await import("node:fs/promises")
  t.equal(sha(await readFile((await file.path())!)), sha(NOTES), "Bo has the bytes Ada attached")
  const cy = await signIn(await browser.newContext(), "cy@example.org")
  t.equal((await cy.request.get(`${s.url}${href}`)).status(), 404, "not to a non-member")
  const nobody = await (await browser.newContext()).newPage()
  t.equal((await nobody.request.get(`${s.url}${href}`)).status(), 404, "not to a signed-out visitor")
})

t.test("Attach files with the keyboard, in German and French", async (t) => {
  for (const [locale, label, button] of [["de", "Dateien anhängen", /Kommentar/], ["fr", "Joindre des fichiers", /commentaire/i]] as const) {
    const page = await signIn(await browser.newContext({ locale }), "ada@example.org")
    await page.goto(threadUrl)
    t.equal(await page.getByLabel(label).count(), 1, `${locale}: "${label}"`)
    await page.getByLabel(label).focus()
    t.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type), "file", `${locale}: the file field takes the focus`)
    t.ok(await page.getByRole("button", { name: button }).count() >= 1)
  }
})

t.test("a forged form and a file over the limit: refused, nothing kept", async (t) => {
  const page = await adaPage()
  await page.goto(threadUrl)
  const before = { comments: await count("comments"), attachments: await count("attachments"), blobs: await count("blobs") }
  const forged = await page.request.post(`${threadUrl}/comments`, {
    multipart: { csrf: "forged", body: "Forged", files: { name: "x.png", mimeType: "image/png", buffer: PNG } }
  })
  t.equal(forged.status(), 403, "a forged form")
  const big = await page.request.post(`${threadUrl}/comments`, {
    multipart: { csrf: "forged", body: "Too big", files: { name: "big.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(LIMIT + 1, 7) } }
  })
  t.equal(big.status(), 413, "a file over the limit")
  t.same({ comments: await count("comments"), attachments: await count("attachments"), blobs: await count("blobs") }, before, "nothing written")
  t.same(received(), [], "nothing received is left")
})

t.test("Attach files when starting a thread, a poll and stating an outcome: each shown on its page", async (t) => {
  const page = await adaPage()
  const plan = Buffer.from("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n")
  await page.goto(`${s.url}/g/${group.key}/discussions/new`)
  await page.getByLabel("Title").fill("New beds")
  await page.getByLabel("Attach files").setInputFiles([{ name: "bed plan.pdf", mimeType: "application/pdf", buffer: plan }])
  await page.getByRole("button", { name: "Start discussion" }).click()
  await page.waitForURL(/\/d\/[A-Za-z0-9]+$/)
  t.equal(await page.getByRole("link", { name: "bed plan.pdf" }).count(), 1, "the thread's file, under its details")
  const [row] = await s.sql<any>(`SELECT b.content_type FROM attachments a JOIN blobs b ON b.id = a.blob_id WHERE a.filename = 'bed plan.pdf' AND a.record_type = 'Discussion'`)
  t.match(row, { content_type: "application/pdf" })

  await page.getByRole("link", { name: "Start a poll" }).click()
  await page.getByLabel("Title").fill("Raised or flat?")
  await page.getByLabel("Attach files").setInputFiles([{ name: "raised.png", mimeType: "image/png", buffer: PNG }])
  await submitted(page, page.getByRole("button", { name: "Start poll" }).click(), /./)
  t.equal(await page.locator("ul.files img[alt='raised.png']").count(), 1, "the poll's file on its page")
  await axe(t, page, "a poll page with a file")
  await page.getByRole("button", { name: "Close poll" }).click()
  await page.waitForLoadState()
  await page.getByLabel("Outcome").fill("Raised beds.")
  await page.getByLabel("Attach files").setInputFiles([{ name: "minutes.txt", mimeType: "text/plain", buffer: NOTES }])
  await submitted(page, page.getByRole("button", { name: "Share outcome" }).click(), /./)
  t.equal(await page.locator("section.outcome").getByRole("link", { name: "minutes.txt" }).count(), 1, "the outcome's file")
  t.same(received(), [], "nothing received is left")
})

t.test("editing a comment, a thread and a poll: Keep the files left checked, Attach more", async (t) => {
  const page = await adaPage()
  const up = async (name: string) => {
    const form = new FormData()
    form.append("file", new Blob([Buffer.from(`${name}\n`)]), name)
    return (await (await fetch(`${s.url}/api/b2/attachments`, { method: "POST", headers: { authorization: `Bearer ${ada.apiKey}` }, body: form })).json()).attachment.signed_id
  }
  const c = (await post("api/b2/comments", { discussion_id: d.id, body: "Two lists", files: [await up("old.txt"), await up("kept.txt")] })).comments[0]
  await page.goto(`${s.url}/d/${d.key}/comments/${c.id}/edit`)
  await page.getByLabel("Keep old.txt").uncheck()
  t.ok(await page.getByLabel("Keep kept.txt").isChecked())
  await page.getByLabel("Attach files").setInputFiles([{ name: "new.txt", mimeType: "text/plain", buffer: Buffer.from("new\n") }])
  await axe(t, page, "editing a comment with files")
  await page.getByRole("button", { name: "Save comment" }).click()
  await page.waitForURL(/#comment-\d+$/)
  const names = async (type: string, id: number) => (await s.sql<{ filename: string }>(`SELECT filename FROM attachments WHERE record_type = ? AND record_id = ? ORDER BY position`, type, id)).map((r) => r.filename)
  t.same(await names("Comment", c.id), ["kept.txt", "new.txt"], "the unchecked file let go, the new one after those kept")

  const thread = (await post("api/b2/discussions", { group_id: group.id, title: "Compost", files: [await up("brief.txt")] })).discussions[0]
  await page.goto(`${s.url}/d/${thread.key}/edit`)
  await page.getByLabel("Keep brief.txt").uncheck()
  await page.getByRole("button", { name: "Save thread" }).click()
  await page.waitForURL(/\/d\/[A-Za-z0-9]+$/)
  t.same(await names("Discussion", thread.id), [], "a thread's file let go")

  const poll = (await post("api/b2/polls", { group_id: group.id, title: "Bins?", poll_type: "proposal", closing_at: new Date(Date.now() + 86_400_000).toISOString(), files: [await up("quote.txt")] })).polls[0]
  await page.goto(`${s.url}/p/${poll.key}/edit`)
  t.ok(await page.getByLabel("Keep quote.txt").isChecked())
  await page.getByLabel("Attach files").setInputFiles([{ name: "second quote.txt", mimeType: "text/plain", buffer: Buffer.from("cheaper\n") }])
  await page.getByRole("button", { name: "Save poll" }).click()
  await page.waitForURL(/\/p\/[A-Za-z0-9]+$/)
  t.same(await names("Poll", poll.id), ["quote.txt", "second quote.txt"], "a poll's file kept and one added")
})
