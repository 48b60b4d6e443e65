/**
 * Files (decisions §14): a 200 MB upload and its download through convene (multipart, auth, sniffing, the database
 * row, the directory store) beside a bare `node:http` server streaming the same bytes to the same kind of store
 * (bench/files-baseline.js: SHA-256, a synced file, a rename). Each server runs in a child process; the table gives
 * the medians of interleaved rounds: throughput in MB/s and the ratio convene ÷ bare, and how much each server's RSS
 * rose during an upload (sampled from /proc every 10 ms). `npx tsc -b && node bench/files.js`
 * (BENCH_MB: the file's size, default 200; BENCH_ROUNDS, default 3; BENCH_STORE=s3: both servers on S3-compatible
 * storage, an s3rver on 127.0.0.1 started here, instead of a directory).
 */
import { makeConvene } from "@convene/core"
import { fork } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import http from "node:http"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const MB = Number(process.env.BENCH_MB ?? 200)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const dir = mkdtempSync(join(tmpdir(), "convene-files-bench-"))
const convene = makeConvene({ filename: join(dir, "bench.db") })
const { apiKey } = await convene.users.create({ email: "ada@example.org", name: "Ada" })
await convene.close()

const start = (script, args, env = {}) => new Promise((resolve, reject) => {
  const child = fork(join(here, script), args, { env: { ...process.env, ...env } })
  child.once("message", (m) => resolve({ url: m.url, child }))
  child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)))
})
const stop = (s) => new Promise((resolve) => { s.child.once("exit", resolve); s.child.send("stop") })
const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024

const CHUNK = randomBytes(1024 * 1024)
/** POSTs MB megabytes (in 1 MiB writes, as a client streams them), wrapped as multipart or raw; resolves with the answer. */
const send = (url, path, headers, wrap) => new Promise((resolve, reject) => {
  const boundary = "----benchfiles"
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`)
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const length = MB * CHUNK.length + (wrap ? head.length + tail.length : 0)
  const req = http.request(`${url}${path}`, { method: "POST", headers: { ...headers, "content-length": length, "content-type": wrap ? `multipart/form-data; boundary=${boundary}` : "application/octet-stream" } }, (res) => {
    let body = ""
    res.on("data", (c) => (body += c))
    res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`${res.statusCode} ${body}`))))
  })
  req.on("error", reject)
  let i = 0
  const write = () => {
    if (i === 0 && wrap) req.write(head)
    while (i < MB) {
      i++
      if (!req.write(CHUNK)) return void req.once("drain", write)
    }
    if (wrap) req.write(tail)
    req.end()
  }
  write()
})
const receive = (url, headers) => new Promise((resolve, reject) => {
  http.get(url, { headers }, (res) => {
    let n = 0
    res.on("data", (c) => (n += c.length))
    res.on("end", () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`${res.statusCode}`))))
  }).on("error", reject)
})
/** Runs `work` while sampling the child's RSS: its time and how far RSS rose above where it began. */
const measured = async (child, work) => {
  const before = rssOf(child.pid)
  let peak = before
  const timer = setInterval(() => { peak = Math.max(peak, rssOf(child.pid)) }, 10)
  const t0 = performance.now()
  const result = await work()
  const ms = performance.now() - t0
  clearInterval(timer)
  return { result, ms, rose: peak - before }
}

const S3 = process.env.BENCH_STORE === "s3"
const s3 = S3 ? await (async () => {
  const { default: S3rver } = await import("s3rver")
  const server = new S3rver({ address: "127.0.0.1", port: 0, directory: join(dir, "s3"), silent: true, configureBuckets: [{ name: "bench", configs: [] }] })
  const address = await new Promise((resolve, reject) => server.run((err, a) => (err ? reject(err) : resolve(a))))
  return { server, endpoint: `http://127.0.0.1:${address.port}` }
})() : undefined
const storeEnv = s3 === undefined ? { BENCH_STORAGE_DIR: join(dir, "convene-files") } : { BENCH_S3_ENDPOINT: s3.endpoint }
const c = await start("convene-server.js", [join(dir, "bench.db")], { ...storeEnv, ATTACHMENT_MAX_BYTES: String((MB + 10) * 1024 * 1024) })
const b = await start("files-baseline.js", [join(dir, "bare-files")], s3 === undefined ? {} : { BENCH_S3_ENDPOINT: s3.endpoint })
const auth = { authorization: `Bearer ${apiKey}` }
const rows = { convene: { up: [], down: [], rose: [] }, bare: { up: [], down: [], rose: [] } }
const mbps = (ms) => MB / (ms / 1000)
for (let round = 0; round < ROUNDS; round++) {
  const up = await measured(c.child, () => send(c.url, "/api/b2/attachments", auth, true))
  rows.convene.up.push(mbps(up.ms))
  rows.convene.rose.push(up.rose)
  const down = await measured(c.child, () => receive(`${c.url}${up.result.attachment.download_url}`, auth))
  if (down.result !== MB * CHUNK.length) throw new Error(`convene sent ${down.result} bytes`)
  rows.convene.down.push(mbps(down.ms))
  const bup = await measured(b.child, () => send(b.url, "/", {}, false))
  rows.bare.up.push(mbps(bup.ms))
  rows.bare.rose.push(bup.rose)
  const bdown = await measured(b.child, () => receive(`${b.url}/${bup.result.key}`, {}))
  rows.bare.down.push(mbps(bdown.ms))
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
const f = (x) => x.toFixed(0)
console.log(`| ${MB} MB, ${S3 ? "S3 (s3rver)" : "directory"} store | convene | bare node:http | convene ÷ bare |`)
console.log("|---|---:|---:|---:|")
console.log(`| upload MB/s | ${f(median(rows.convene.up))} | ${f(median(rows.bare.up))} | ${(median(rows.convene.up) / median(rows.bare.up)).toFixed(2)} |`)
console.log(`| download MB/s | ${f(median(rows.convene.down))} | ${f(median(rows.bare.down))} | ${(median(rows.convene.down) / median(rows.bare.down)).toFixed(2)} |`)
console.log(`| RSS rise during an upload, MB | ${(median(rows.convene.rose) / 1e6).toFixed(1)} | ${(median(rows.bare.rose) / 1e6).toFixed(1)} | |`)
await stop(c)
await stop(b)
if (s3 !== undefined) await new Promise((resolve) => s3.server.close(resolve))
rmSync(dir, { recursive: true, force: true })
