/**
 * The file stores (decisions §14) held to one contract, the directory and S3-compatible storage (a real S3-protocol
 * server on 127.0.0.1 behind a signature-checking proxy, test/s3.ts): received bytes hashed and counted, kept under
 * a key, read whole or in part, nothing kept past the limit; and the server on S3 storage, end to end. A wrong secret
 * is refused by the service, and the bytes stored are the bytes sent.
 */
import t from "tap"
import { matchExact } from "./match.js"
import { directoryStorage, type FileStorageService, ReceiveError, s3Storage } from "@convene/core"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable } from "node:stream"
import { text } from "node:stream/consumers"
import { poster, runHere, seedUser, startTestServer } from "./helpers.js"
import { startS3 } from "./s3.js"

t.setTimeout(120_000)

const s3 = await startS3()
t.teardown(s3.close)
const dir = mkdtempSync(join(tmpdir(), "convene-dir-store-"))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const onS3 = () => s3Storage({ bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, endpoint: s3.endpoint })
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex")
const bytesOf = async (r: Readable | undefined) => {
  const chunks: Array<Buffer> = []
  for await (const c of r!) chunks.push(Buffer.from(c as Uint8Array))
  return Buffer.concat(chunks)
}
/** A source that comes in pieces, as a request body does. */
const pieces = (b: Buffer, size = 64 * 1024) => Readable.from(Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size)))

for (const [name, storage] of [["directory", directoryStorage(dir)], ["S3", onS3()]] as const) {
  t.test(`${name}: received, kept, read whole and in part, removed; nothing kept past the limit`, async (t) => {
    const bytes = randomBytes(9 * 1024 * 1024 + 123)
    const got = await storage.receive(pieces(bytes), 10 * 1024 * 1024)
    t.equal(got.sha256, sha(bytes))
    t.equal(got.byteSize, bytes.length)
    t.same(Buffer.from(got.head), bytes.subarray(0, 4100), "its first bytes, to sniff")
    const key = `${got.sha256.slice(0, 2)}/${got.sha256.slice(2, 4)}/${got.sha256}-${name === "S3" ? "a1" : "b2"}`
    await storage.keep(got.temp, key)
    t.ok(await storage.exists(key))
    t.equal(sha(await bytesOf(await storage.read(key))), sha(bytes), "the same bytes back")
    t.same(await bytesOf(await storage.read(key, { start: 5, end: 14 })), bytes.subarray(5, 15), "a range")
    t.equal(await storage.read("no/such/key"), undefined)
    await storage.put("probe/x", Buffer.from("probe"))
    t.equal(await text((await storage.read("probe/x"))!), "probe")
    await storage.remove(key)
    await storage.remove("probe/x")
    t.notOk(await storage.exists(key), "removed")
    const past = await storage.receive(pieces(randomBytes(300_000)), 200_000).then(() => undefined, (e: unknown) => e)
    t.ok(past instanceof ReceiveError && past.failure._tag === "TooLarge", `past the limit: ${String(past)}`)
    await t.rejects(storage.read("../etc/passwd"), /not a storage key/, "a key the core did not make is refused")
  })
}

t.test("S3: a wrong secret is refused by the service; the proxy saw plain bytes only", async (t) => {
  const wrong = s3Storage({ bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: "not-the-secret", endpoint: s3.endpoint })
  const before = s3.refused.length
  await t.rejects(wrong.put("probe/wrong", Buffer.from("x")))
  t.same(s3.refused.slice(before), ["signature does not match"], "refused for its signature")
  t.notOk(s3.refused.includes("aws-chunked body"), "no aws-chunked body was ever sent")
})

t.test("the server on S3 storage: upload, attach, download byte for byte; nothing left in tmp/", async (t) => {
  const storage = onS3()
  const s = await startTestServer({}, { files: storage })
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
  const post = poster(s.as(ada.apiKey))
  const group = (await post("api/b2/groups", { name: "Orchard" })).groups[0]
  const d = (await post("api/b2/discussions", { group_id: group.id, title: "Grafting" })).discussions[0]
  const bytes = randomBytes(3 * 1024 * 1024)
  const boundary = "----s3test"
  const body = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.bin"\r\n\r\n`), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)])
  const res = await s.as(ada.apiKey).post("api/b2/attachments", { body, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } })
  t.equal(res.statusCode, 200, JSON.stringify(res.body))
  const a = (res.body as any).attachment
  await post("api/b2/comments", { discussion_id: d.id, body: "The scan", files: [a.signed_id] })
  const [row] = await s.sql<{ storage_key: string }>(`SELECT b.storage_key FROM blobs b JOIN attachments a ON a.blob_id = b.id WHERE a.signed_id = ?`, a.signed_id)
  t.ok(await storage.exists(row!.storage_key), "the object is in the bucket under the blob's key")
  const down = await s.as(ada.apiKey).get(a.download_url.slice(1), { responseType: "buffer" })
  t.equal(down.statusCode, 200)
  t.equal(sha(down.body), sha(bytes), "byte for byte")
  const part = await s.as(ada.apiKey).get(a.download_url.slice(1), { responseType: "buffer", headers: { range: "bytes=1000-1999" } })
  t.same(part.body, bytes.subarray(1000, 2000))
})

t.test("convene files copy: a directory to S3 and back, byte for byte; again, nothing to copy", async (t) => {
  const s = await startTestServer()
  t.teardown(s.close)
  const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
  const { default: sharp } = await import("sharp")
  const files = [
    { name: "site.png", bytes: await sharp({ create: { width: 1600, height: 900, channels: 3, background: "#336699" } }).png().toBuffer() },
    { name: "notes.txt", bytes: Buffer.from("compost, then mulch\n") }
  ]
  for (const f of files) {
    const boundary = "----copytest"
    const body = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f.name}"\r\n\r\n`), f.bytes, Buffer.from(`\r\n--${boundary}--\r\n`)])
    t.equal((await s.as(ada.apiKey).post("api/b2/attachments", { body, headers: { "content-type": `multipart/form-data; boundary=${boundary}` } })).statusCode, 200)
  }
  const blobs = await s.sql<{ sha256: string; storage_key: string; preview_key: string | null }>(`SELECT sha256, storage_key, preview_key FROM blobs ORDER BY id`)
  t.equal(blobs.filter((b) => b.preview_key !== null).length, 1, "the image has a preview")
  const cli = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
    const { code, stdout, stderr } = await runHere([...args, "--json", "--db", s.filename], env)
    return { code, out: stdout === "" ? undefined : JSON.parse(stdout), stderr }
  }
  const keys = { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, AWS_REGION: s3.region, AWS_ENDPOINT: s3.endpoint }
  const toS3 = await cli(["files", "copy", "--to", `s3://${s3.bucket}`], { STORAGE_DIR: s.filesDir, ...keys })
  t.equal(toS3.code, 0, toS3.stderr)
  matchExact(t, toS3.out, { copied: 3, present: 0, missing: [] }, "two files and a preview, to S3")
  const bucket = onS3()
  for (const b of blobs) t.equal(sha(await bytesOf(await bucket.read(b.storage_key))), b.sha256, `${b.storage_key} in the bucket, byte for byte`)
  const back = mkdtempSync(join(tmpdir(), "convene-back-"))
  t.teardown(() => rmSync(back, { recursive: true, force: true }))
  const fromS3 = await cli(["files", "copy", "--to", back], { AWS_BUCKET: s3.bucket, ...keys })
  t.equal(fromS3.code, 0, fromS3.stderr)
  matchExact(t, fromS3.out, { copied: 3, missing: [] }, "and back into a directory")
  const home = directoryStorage(back)
  for (const b of blobs) t.equal(sha(await bytesOf(await home.read(b.storage_key))), b.sha256, `${b.storage_key} back, byte for byte`)
  t.match((await cli(["files", "copy", "--to", back], { AWS_BUCKET: s3.bucket, ...keys })).out, { copied: 0, present: 3 }, "again: nothing to copy")
  const noKeys = await cli(["files", "copy", "--to", `s3://${s3.bucket}`], { STORAGE_DIR: s.filesDir })
  t.equal(noKeys.code, 1)
  t.match(noKeys.stderr, /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/)
})
