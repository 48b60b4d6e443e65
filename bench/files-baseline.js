/**
 * Child process: the files baseline (bench/files.js). A bare `node:http` server doing what convene's file routes do
 * to the bytes, and nothing else: an upload (the raw body, not multipart) streamed through SHA-256 into a synced file
 * under the directory, renamed under its hash; a download streamed from that file. With BENCH_S3_ENDPOINT, the same
 * with S3-compatible storage as convene's S3 store does it: a multipart upload of the hashed stream (5 MiB parts, one
 * in flight) under a temporary key, copied under its hash; a download streamed from GetObject. No auth, no database,
 * no parsing.
 */
import { createHash, randomBytes } from "node:crypto"
import { createReadStream, createWriteStream } from "node:fs"
import { mkdir, open, rename } from "node:fs/promises"
import * as http from "node:http"
import { join } from "node:path"
import { PassThrough, Transform } from "node:stream"
import { pipeline } from "node:stream/promises"

const dir = process.argv[2]
await mkdir(join(dir, "tmp"), { recursive: true })
const endpoint = process.env.BENCH_S3_ENDPOINT
const s3 = endpoint === undefined ? undefined : await (async () => {
  const sdk = await import("@aws-sdk/client-s3")
  const { Upload } = await import("@aws-sdk/lib-storage")
  const client = new sdk.S3Client({ region: "us-east-1", endpoint, forcePathStyle: true, credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED" })
  return { sdk, Upload, client }
})()
const server = http.createServer(async (req, res) => {
  if (s3 !== undefined) {
    if (req.method === "POST") {
      const hash = createHash("sha256")
      const temp = `tmp/${randomBytes(16).toString("hex")}`
      const body = new PassThrough()
      const upload = new s3.Upload({ client: s3.client, params: { Bucket: "bench", Key: temp, Body: body }, partSize: 5 * 1024 * 1024, queueSize: 1 })
      await Promise.all([pipeline(req, new Transform({ transform(chunk, _e, done) { hash.update(chunk); done(null, chunk) } }), body), upload.done()])
      const key = hash.digest("hex")
      await s3.client.send(new s3.sdk.CopyObjectCommand({ Bucket: "bench", Key: key, CopySource: `bench/${temp}` }))
      await s3.client.send(new s3.sdk.DeleteObjectCommand({ Bucket: "bench", Key: temp }))
      res.writeHead(200, { "content-type": "application/json" })
      return void res.end(JSON.stringify({ key }))
    }
    const got = await s3.client.send(new s3.sdk.GetObjectCommand({ Bucket: "bench", Key: (req.url ?? "/").slice(1) }))
    res.writeHead(200, { "content-type": "application/octet-stream" })
    return void await pipeline(got.Body, res).catch(() => undefined)
  }
  if (req.method === "POST") {
    const hash = createHash("sha256")
    const temp = join(dir, "tmp", randomBytes(16).toString("hex"))
    const handle = await open(temp, "wx", 0o600)
    await pipeline(req, new Transform({ transform(chunk, _e, done) { hash.update(chunk); done(null, chunk) } }), createWriteStream("", { fd: handle.fd, autoClose: false }))
    await handle.sync()
    await handle.close()
    const key = hash.digest("hex")
    await rename(temp, join(dir, key))
    res.writeHead(200, { "content-type": "application/json" })
    return void res.end(JSON.stringify({ key }))
  }
  const key = (req.url ?? "/").slice(1)
  res.writeHead(200, { "content-type": "application/octet-stream" })
  await pipeline(createReadStream(join(dir, key)), res).catch(() => undefined)
})
server.listen(0, "127.0.0.1", () => process.send({ url: `http://127.0.0.1:${server.address().port}` }))
process.on("message", (m) => m === "stop" && server.close(() => process.exit(0)))
process.on("disconnect", () => process.exit(0))
