/**
 * Child process: the files baseline (bench/files.js). A bare `node:http` server doing what convene's file routes do
 * to the bytes, and nothing else: an upload (the raw body, not multipart) streamed through SHA-256 into a synced file
 * under the directory, renamed under its hash; a download streamed from that file. No auth, no database, no parsing.
 */
import { createHash, randomBytes } from "node:crypto"
import { createReadStream, createWriteStream } from "node:fs"
import { mkdir, open, rename } from "node:fs/promises"
import * as http from "node:http"
import { join } from "node:path"
import { Transform } from "node:stream"
import { pipeline } from "node:stream/promises"

const dir = process.argv[2]
await mkdir(join(dir, "tmp"), { recursive: true })
const server = http.createServer(async (req, res) => {
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
