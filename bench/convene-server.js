/**
 * Child process: the real convene server over the seeded file. Run apart from autocannon so the load
 * generator does not steal the server's event loop (the machine has 2 cores: one each).
 */
import { directoryStorage, openConvene, s3Storage } from "@convene/core"
import { startServer } from "@convene/http"

const filename = process.argv[2]
if (filename === undefined) throw new Error("usage: convene-server.js <database file or postgres:// URL>")

const c = await openConvene({ database: filename })
const server = await startServer({
  store: c.store,
  // files (bench/files.js): a directory store, and ATTACHMENT_MAX_BYTES as serve reads it
  ...(process.env.BENCH_STORAGE_DIR ? { files: directoryStorage(process.env.BENCH_STORAGE_DIR) } : {}),
  ...(process.env.BENCH_S3_ENDPOINT
    ? { files: s3Storage({ bucket: "bench", region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER", endpoint: process.env.BENCH_S3_ENDPOINT }) }
    : {}),
  port: 0,
  host: "127.0.0.1",
  settings: { b3ApiKey: undefined, baseUrl: "http://127.0.0.1", maxBodyBytes: 1048576, version: "bench", explorePublicGroups: process.env.FEATURES_EXPLORE_PUBLIC_GROUPS === "1",
    ...(process.env.ATTACHMENT_MAX_BYTES ? { attachmentMaxBytes: Number(process.env.ATTACHMENT_MAX_BYTES) } : {}) }
})

// The parent learns the URL over IPC and ends the child with a "stop" message (or by disconnecting).
const stop = async () => {
  await server.close()
  await c.close()
  process.exit(0)
}
process.on("message", (m) => m === "stop" && void stop())
process.on("disconnect", () => void stop())
process.send({ url: server.url })
