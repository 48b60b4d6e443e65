/**
 * Files (decisions §14), through the real server on both stores with the directory file store: an upload over
 * the API (multipart, streamed, sniffed, kept once per content), a comment that carries it (Loomio's `files` and
 * `attachments`), downloads only for those who may read the record, the limit, bad input that keeps nothing,
 * Range requests, and the purge of uploads no record took.
 */
import t from "tap"
import { matchExact } from "./match.js"
import { Attachments, directoryStorage, FileStorage, Store } from "@convene/core"
import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { Readable } from "node:stream"
import { poster, seedUser, startTestServer, type TestServer } from "./helpers.js"

t.setTimeout(120_000)

const LIMIT = 64 * 1024
const s = await startTestServer({ attachmentMaxBytes: LIMIT })
t.teardown(s.close)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const cy = await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
const A = s.as(ada.apiKey)
const B = s.as(bo.apiKey)
const C = s.as(cy.apiKey)
const post = poster(A)
const group = (await post("api/b2/groups", { name: "Allotment" })).groups[0]
await s.convene.members.add({ group: (await s.convene.groups.list()).find((v) => v.group.id === group.id)!.group, user: bo.user })
const d = (await post("api/b2/discussions", { group_id: group.id, title: "The shed", private: true })).discussions[0]

// a 1×1 PNG: what file-type knows by its signature
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64")
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex")

/** A multipart body with one file part (or a part of another name), as a browser or curl -F sends it. */
const multipart = (filename: string, bytes: Buffer, field = "file") => {
  const boundary = `----convene${randomBytes(8).toString("hex")}`
  // a name beyond printable ASCII as RFC 5987 says it (a raw control character makes the part's header malformed)
  const name = /^[\x20-\x7e]*$/.test(filename) ? `filename="${filename}"` : `filename*=UTF-8''${encodeURIComponent(filename)}`
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; ${name}\r\nContent-Type: image/png\r\n\r\n`
  return { body: Buffer.concat([Buffer.from(head, "utf8"), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` }
}
const upload = (client: TestServer["api"], filename: string, bytes: Buffer, field = "file") => {
  const m = multipart(filename, bytes, field)
  return client.post("api/b2/attachments", { body: m.body, headers: { "content-type": m.type } })
}
const counts = async () => ({
  attachments: (await s.sql<{ n: number }>(`SELECT count(*) AS n FROM attachments`))[0]!.n,
  blobs: (await s.sql<{ n: number }>(`SELECT count(*) AS n FROM blobs`))[0]!.n
})
/** Every file under the store's directory (kept objects and what is still being received). */
const storedFiles = (dir = s.filesDir): Array<string> =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)) : []
const runWithFiles = <A>(effect: Effect.Effect<A, never, Store | FileStorage>) =>
  s.convene.run(Effect.provideService(effect, FileStorage, directoryStorage(s.filesDir)))

t.test("an upload is kept once per content, typed from its bytes, and named by a signed id", async (t) => {
  const res = await upload(A, "plot plan.png", PNG)
  t.equal(res.statusCode, 200, JSON.stringify(res.body))
  const a = (res.body as any).attachment
  t.match(a, { filename: "plot plan.png", content_type: "image/png", byte_size: PNG.length, icon: "image" })
  t.equal(a.preview_url, `${a.download_url}?preview=1`, "an image has a preview")
  t.match(a.signed_id, /^[A-Za-z0-9_-]{20,}$/)
  t.equal(a.download_url, `/files/${a.signed_id}/plot%20plan.png`)
  const [row] = await s.sql<any>(`SELECT a.record_id, a.uploader_id, b.sha256, b.storage_key FROM attachments a JOIN blobs b ON b.id = a.blob_id WHERE a.signed_id = ?`, a.signed_id)
  t.match(row, { record_id: null, uploader_id: ada.user.id, sha256: sha(PNG) })
  t.equal(sha(readFileSync(join(s.filesDir, row.storage_key))), sha(PNG), "the bytes are in the store under the blob's key")
  const before = await counts()
  const again = await upload(A, "copy.png", PNG)
  t.equal(again.statusCode, 200)
  t.same(await counts(), { attachments: before.attachments + 1, blobs: before.blobs }, "the same bytes again: a new upload, the same blob")
  t.equal(storedFiles().filter((f) => !f.includes(`${join(s.filesDir, "tmp")}`)).filter((f) => f.includes(sha(PNG)) && !f.endsWith("-preview")).length, 1, "stored once")
  t.same(storedFiles(join(s.filesDir, "tmp")), [], "nothing left half-received")
})

t.test("a comment takes files (its body may then be empty); a member downloads them, nobody else does", async (t) => {
  const a = ((await upload(A, "bed layout.png", PNG)).body as any).attachment
  const noBody = await A.post("api/b2/comments", { json: { discussion_id: d.id, body: "" } })
  t.equal(noBody.statusCode, 422, "no body and no file: refused")
  const res = await A.post("api/b2/comments", { json: { discussion_id: d.id, body: "", files: [a.signed_id] } })
  t.equal(res.statusCode, 200, JSON.stringify(res.body))
  const c = (res.body as any).comments[0]
  t.equal(c.body, "")
  matchExact(t, c.attachments, [{ signed_id: a.signed_id, filename: "bed layout.png", content_type: "image/png", download_url: a.download_url }])
  const [row] = await s.sql<any>(`SELECT record_type, record_id, attached_at FROM attachments WHERE signed_id = ?`, a.signed_id)
  t.match(row, { record_type: "Comment", record_id: c.id, attached_at: /^\d{4}-/ })
  // the thread's items carry it too
  const items = (await B.get(`api/b2/threads/${d.topic_id}/items`)).body as any
  matchExact(t, items.comments.find((x: any) => x.id === c.id).attachments, [{ signed_id: a.signed_id }])

  const got = await B.get(a.download_url.slice(1), { responseType: "buffer" })
  t.equal(got.statusCode, 200, "a member downloads it")
  t.equal(sha(got.body), sha(PNG))
  t.equal(got.headers["content-type"], "image/png")
  t.equal(got.headers["x-content-type-options"], "nosniff")
  t.equal(got.headers["content-security-policy"], "sandbox")
  t.match(got.headers["content-disposition"], /^inline; filename="bed layout.png"; filename\*=UTF-8''bed%20layout\.png$/, "a raster image is shown inline")
  t.equal((await C.get(a.download_url.slice(1))).statusCode, 404, "not to a non-member")
  t.equal((await s.api.get(a.download_url.slice(1))).statusCode, 404, "not to nobody")
  t.equal((await B.get(`files/${a.signed_id}/other.png`)).statusCode, 404, "not under another name")
  t.equal((await s.api.get(a.download_url.slice(1), { headers: { authorization: "Bearer nonsense" } })).statusCode, 404, "not with a wrong key")

  // a signed-in browser's session downloads it as its key would
  const token = randomBytes(24).toString("base64url")
  const now = Date.now()
  await s.convene.run(Effect.flatMap(Store, (st) => st.transaction(st.sessions.insert({
    token_hash: createHash("sha256").update(token).digest("hex"), user_id: bo.user.id,
    created_at: new Date(now).toISOString(), last_seen_at: new Date(now).toISOString(), expires_at: new Date(now + 86_400_000).toISOString()
  }))))
  t.equal((await s.api.get(a.download_url.slice(1), { headers: { cookie: `convene_session=${token}` }, responseType: "buffer" })).statusCode, 200, "with a session")

  // deleted: gone for everyone
  t.equal((await A.delete(`api/b2/comments/${c.id}`)).statusCode, 200)
  t.equal((await B.get(a.download_url.slice(1))).statusCode, 404, "a deleted comment's file is not served")
})

t.test("an HTML file named .png is served as what it is, as an attachment, never inline", async (t) => {
  const html = Buffer.from("<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>")
  const a = ((await upload(A, "innocent.png", html)).body as any).attachment
  t.equal(a.content_type, "text/html", "the type sniffed from the bytes, not the name or the sender's word")
  const svg = ((await upload(A, "logo.png", Buffer.from(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`))).body as any).attachment
  t.equal(svg.content_type, "image/svg+xml")
  const c = (await post("api/b2/comments", { discussion_id: d.id, body: "Two drawings", files: [a.signed_id, svg.signed_id] })).comments[0]
  t.same(c.attachments.map((x: any) => x.filename), ["innocent.png", "logo.png"], "in the order sent")
  for (const f of [a, svg]) {
    const got = await B.get(f.download_url.slice(1), { responseType: "text" })
    t.equal(got.statusCode, 200)
    t.equal(got.headers["content-type"], f.content_type)
    t.match(got.headers["content-disposition"], /^attachment; /, `${f.content_type}: downloaded, not rendered`)
    t.equal(got.headers["content-security-policy"], "sandbox")
    t.equal(got.headers["x-content-type-options"], "nosniff")
  }
})

t.test("Range: part of a file, or 416", async (t) => {
  const bytes = randomBytes(10_000)
  const a = ((await upload(A, "noise.bin", bytes)).body as any).attachment
  t.equal(a.content_type, "application/octet-stream")
  await post("api/b2/comments", { discussion_id: d.id, body: "Noise", files: [a.signed_id] })
  const part = await B.get(a.download_url.slice(1), { headers: { range: "bytes=100-199" }, responseType: "buffer" })
  t.equal(part.statusCode, 206)
  t.equal(part.headers["content-range"], "bytes 100-199/10000")
  t.same(part.body, bytes.subarray(100, 200))
  const tail = await B.get(a.download_url.slice(1), { headers: { range: "bytes=-10" }, responseType: "buffer" })
  t.same(tail.body, bytes.subarray(9990))
  t.equal((await B.get(a.download_url.slice(1), { headers: { range: "bytes=20000-" } })).statusCode, 416)
  const whole = await B.get(a.download_url.slice(1), { responseType: "buffer" })
  t.equal(whole.headers["accept-ranges"], "bytes")
  t.match(whole.headers["content-disposition"], /^attachment; /)
})

t.test("over the limit: 413, and nothing kept in the store or the database", async (t) => {
  const before = await counts()
  const big = randomBytes(LIMIT + 1)
  const stated = await upload(A, "huge.bin", randomBytes(LIMIT + 100 * 1024))
  t.equal(stated.statusCode, 413, "refused by its stated length, unread")
  // sent without a length (chunked): refused while it streams
  const within = await upload(A, "big.bin", big)
  t.equal(within.statusCode, 413, "a byte over, refused while it streams")
  const m = multipart("big.bin", big)
  const streamed = await A.post("api/b2/attachments", { body: Readable.from([m.body.subarray(0, 1000), m.body.subarray(1000)]), headers: { "content-type": m.type } })
  t.equal(streamed.statusCode, 413, "and sent without a length (chunked)")
  t.same(await counts(), before, "no row")
  t.same(storedFiles(join(s.filesDir, "tmp")), [], "no bytes")
  const exact = await upload(A, "exact.bin", randomBytes(LIMIT))
  t.equal(exact.statusCode, 200, "the limit itself is allowed")
})

t.test("bad input: clear 4xx, nothing written", async (t) => {
  const before = await counts()
  const keptBefore = storedFiles().length
  const cases: Array<[string, Promise<{ statusCode: number; body: unknown }>, number]> = [
    ["no file field", upload(A, "x.png", PNG, "document"), 400],
    ["not multipart", A.post("api/b2/attachments", { json: { file: "x" } }), 400],
    ["a name with a path", upload(A, "../../etc/passwd", PNG), 422],
    ["a name with a backslash", upload(A, "..\\boot.ini", PNG), 422],
    ["a name with a control character", upload(A, "bad\u0001name.png", PNG), 422],
    ["a name with a newline", upload(A, "two\nlines.png", PNG), 422],
    ["a blank name", upload(A, " ", PNG), 422],
    ["no key", upload(s.api, "x.png", PNG), 403]
  ]
  for (const [name, res, status] of cases) {
    const r = await res
    t.equal(r.statusCode, status, `${name}: ${JSON.stringify(r.body)}`)
  }
  // a body cut short: the closing boundary never comes
  const m = multipart("cut.png", randomBytes(5000))
  const cut = await A.post("api/b2/attachments", { body: m.body.subarray(0, m.body.length - 300), headers: { "content-type": m.type } })
  t.equal(cut.statusCode, 400, "a truncated multipart body")
  const raw = Buffer.concat([Buffer.from(`--b\r\nContent-Disposition: form-data; name="file"; filename="a\u0001b.png"\r\n\r\n`, "latin1"), PNG, Buffer.from("\r\n--b--\r\n")])
  t.equal((await A.post("api/b2/attachments", { body: raw, headers: { "content-type": "multipart/form-data; boundary=b" } })).statusCode, 400, "a raw control character in a part's header")
  t.same(await counts(), before, "no row")
  t.equal(storedFiles().length, keptBefore, "no bytes")

  // attaching what is not one's own, or not there
  const bos = ((await upload(B, "bo.png", PNG)).body as any).attachment
  const commentsBefore = (await s.sql<{ n: number }>(`SELECT count(*) AS n FROM comments`))[0]!.n
  for (const [name, files] of [["an unknown signed id", ["nope"]], ["someone else's upload", [bos.signed_id]]] as const) {
    const res = await A.post("api/b2/comments", { json: { discussion_id: d.id, body: "With a file", files } })
    t.equal(res.statusCode, 422, name)
    matchExact(t, (res.body as any).errors.files, [/./])
  }
  t.equal((await s.sql<{ n: number }>(`SELECT count(*) AS n FROM comments`))[0]!.n, commentsBefore, "no comment written")
  // a file on a comment the caller may not edit
  const adas = (await post("api/b2/comments", { discussion_id: d.id, body: "Ada's" })).comments[0]
  const res = await B.patch(`api/b2/comments/${adas.id}`, { json: { files: [bos.signed_id] } })
  t.equal(res.statusCode, 403)
  t.same(await s.sql(`SELECT record_id FROM attachments WHERE signed_id = ?`, bos.signed_id), [{ record_id: null }], "still unattached")
  // files as something other than a list of signed ids
  t.equal((await A.post("api/b2/comments", { json: { discussion_id: d.id, body: "x", files: "abc" } })).statusCode, 400)
})

t.test("an edit sets the comment's files; uploads no record took are gone after the purge, with their bytes", async (t) => {
  const one = ((await upload(A, "one.txt", Buffer.from("first draft\n"))).body as any).attachment
  const two = ((await upload(A, "two.txt", Buffer.from("second draft\n"))).body as any).attachment
  t.equal(one.content_type, "text/plain")
  const c = (await post("api/b2/comments", { discussion_id: d.id, body: "Drafts", files: [one.signed_id, two.signed_id] })).comments[0]
  const edited = (await A.patch(`api/b2/comments/${c.id}`, { json: { files: [two.signed_id] } })).body as any
  t.same(edited.comments[0].attachments.map((x: any) => x.filename), ["two.txt"], "the edit's list is the comment's files")
  const left = ((await upload(A, "left.txt", Buffer.from("never attached\n"))).body as any).attachment
  const fresh = ((await upload(A, "fresh.txt", Buffer.from("uploaded a minute ago\n"))).body as any).attachment
  // a day has passed for everything but `fresh`
  await s.sql(`UPDATE attachments SET created_at = ? WHERE signed_id <> ?`, new Date(Date.now() - 25 * 3600_000).toISOString(), fresh.signed_id)
  const keyOf = async (signedId: string) => (await s.sql<{ storage_key: string }>(`SELECT b.storage_key FROM attachments a JOIN blobs b ON b.id = a.blob_id WHERE a.signed_id = ?`, signedId))[0]!.storage_key
  const leftKey = await keyOf(left.signed_id)
  const oneKey = await keyOf(one.signed_id)
  const twoKey = await keyOf(two.signed_id)
  const purged = await runWithFiles(Attachments.purgeUnattached())
  t.ok(purged.attachments >= 2, `uploads purged (${purged.attachments})`)
  t.same(await s.sql(`SELECT signed_id FROM attachments WHERE signed_id IN (?, ?)`, left.signed_id, one.signed_id), [], "the unattached and the let-go upload are gone")
  t.notOk(existsSync(join(s.filesDir, leftKey)), "with their bytes")
  t.notOk(existsSync(join(s.filesDir, oneKey)))
  t.ok(statSync(join(s.filesDir, twoKey)).isFile(), "an attached file stays")
  t.equal((await s.sql(`SELECT 1 FROM attachments WHERE signed_id = ?`, fresh.signed_id)).length, 1, "an upload younger than a day stays")
  t.equal((await B.get(two.download_url.slice(1), { responseType: "text" })).statusCode, 200)
})

t.test("discussions, polls and outcomes take files as comments do; the thread's items carry them; readers of the record download them", async (t) => {
  const up = async (name: string) => ((await upload(A, name, Buffer.from(`${name}\n`))).body as any).attachment
  const [brief, photo, minutes, spare] = [await up("brief.txt"), await up("photo.txt"), await up("minutes.txt"), await up("spare.txt")]
  const disc = (await post("api/b2/discussions", { group_id: group.id, title: "Paths", private: true, files: [brief.signed_id] })).discussions[0]
  t.same(disc.attachments.map((a: any) => a.filename), ["brief.txt"], "a discussion's files")
  const poll = (await post("api/b2/polls", {
    discussion_id: disc.id, title: "Gravel or bark?", poll_type: "poll", options: ["gravel", "bark"], closing_at: new Date(Date.now() + 86_400_000).toISOString(), files: [photo.signed_id]
  })).polls[0]
  t.same(poll.attachments.map((a: any) => a.filename), ["photo.txt"], "a poll's files")
  await post(`api/b2/polls/${poll.id}/close`, {})
  const outcome = (await post("api/b2/outcomes", { poll_id: poll.id, statement: "Bark it is.", files: [minutes.signed_id] })).outcomes[0]
  t.same(outcome.attachments.map((a: any) => a.filename), ["minutes.txt"], "an outcome's files")
  const shown = (await B.get(`api/b2/polls/${poll.id}`)).body as any
  t.same(shown.polls[0].attachments.map((a: any) => a.filename), ["photo.txt"])
  t.same(shown.outcomes[0].attachments.map((a: any) => a.filename), ["minutes.txt"])
  const items = (await B.get(`api/b2/threads/${disc.topic_id}/items`)).body as any
  t.same(items.discussions[0].attachments.map((a: any) => a.filename), ["brief.txt"])
  t.same(items.polls[0].attachments.map((a: any) => a.filename), ["photo.txt"])
  t.same(items.outcomes[0].attachments.map((a: any) => a.filename), ["minutes.txt"])
  for (const f of [brief, photo, minutes]) {
    t.equal((await B.get(f.download_url.slice(1), { responseType: "text" })).body, `${f.filename}\n`, `${f.filename}: a member reads it`)
    t.equal((await C.get(f.download_url.slice(1))).statusCode, 404, `${f.filename}: not a non-member`)
  }
  // an edit's list is the record's files; a file already attached elsewhere is refused
  const edited = (await A.patch(`api/b2/discussions/${disc.id}`, { json: { files: [spare.signed_id, brief.signed_id] } })).body as any
  t.same(edited.discussions[0].attachments.map((a: any) => a.filename), ["spare.txt", "brief.txt"], "added, in the order sent")
  const taken = await A.patch(`api/b2/discussions/${disc.id}`, { json: { files: [photo.signed_id] } })
  t.equal(taken.statusCode, 422, "the poll's file is not the discussion's to take")
  t.same(await s.sql(`SELECT record_type FROM attachments WHERE signed_id = ?`, photo.signed_id), [{ record_type: "Poll" }], "and stays the poll's")
  const cleared = (await A.patch(`api/b2/discussions/${disc.id}`, { json: { files: [] } })).body as any
  t.same(cleared.discussions[0].attachments, [], "an empty list lets every file go")
  t.equal((await B.get(brief.download_url.slice(1))).statusCode, 404, "a file let go is no one's to read but its uploader's")
  t.equal((await A.get(brief.download_url.slice(1), { responseType: "text" })).statusCode, 200, "its uploader still has it, until the purge")
})

t.test("an image gets a preview: at most 1280 px, WebP, its metadata removed; a file sharp cannot read gets none", async (t) => {
  const { default: sharp } = await import("sharp")
  const photo = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: { r: 40, g: 120, b: 60 } } })
    .jpeg().withExif({ IFD0: { Make: "OrchardCam", Model: "Pear 1" } }).toBuffer()
  t.ok((await sharp(photo).metadata()).exif !== undefined, "the photo carries camera metadata")
  const a = ((await upload(A, "site.jpg", photo)).body as any).attachment
  t.equal(a.content_type, "image/jpeg")
  t.equal(a.preview_url, `${a.download_url}?preview=1`)
  const [blob] = await s.sql<any>(`SELECT width, height, preview_key FROM blobs b JOIN attachments a ON a.blob_id = b.id WHERE a.signed_id = ?`, a.signed_id)
  t.match(blob, { width: 3000, height: 2000, preview_key: /-preview$/ })
  await post("api/b2/comments", { discussion_id: d.id, body: "The site", files: [a.signed_id] })
  const got = await B.get(a.preview_url.slice(1), { responseType: "buffer" })
  t.equal(got.statusCode, 200)
  t.equal(got.headers["content-type"], "image/webp")
  t.match(got.headers["content-disposition"], /^inline; filename="site\.webp"/)
  const meta = await sharp(got.body).metadata()
  t.match(meta, { format: "webp", width: 1280, height: 853 })
  t.equal(meta.exif, undefined, "no camera metadata in the preview")
  t.equal((await C.get(a.preview_url.slice(1))).statusCode, 404, "not to a non-member")
  // a PNG that is not one: no preview, the upload stands
  const broken = ((await upload(A, "broken.png", Buffer.concat([PNG.subarray(0, 40), randomBytes(200)]))).body as any).attachment
  t.equal(broken.preview_url, null)
})
