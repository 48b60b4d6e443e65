/**
 * A real S3-protocol server for the tests, on 127.0.0.1: s3rver (its own directory), behind a proxy that does what
 * s3rver does not (decisions §14, measured): it verifies each request's AWS Signature V4 against the one secret, so
 * a wrong secret is refused (403), and refuses `aws-chunked` bodies and bodies whose SHA-256 is not the signed one,
 * so the bytes stored are exactly the bytes sent.
 */
import S3rver from "s3rver"
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import http from "node:http"
import { mkdtempSync, rmSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface TestS3 {
  readonly endpoint: string
  readonly bucket: string
  readonly region: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** where s3rver keeps the objects */
  readonly dir: string
  /** requests the proxy refused, by reason */
  readonly refused: Array<string>
  readonly close: () => Promise<void>
}

const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
const hmac = (key: Buffer | string, data: string) => createHmac("sha256", key).update(data).digest()
const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex")

/** Why a request's signature does not hold with `secret`, or undefined when it does. */
const signatureProblem = (req: http.IncomingMessage, body: Buffer, accessKeyId: string, secret: string): string | undefined => {
  const auth = req.headers.authorization ?? ""
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth)
  if (m === null) return "no AWS4 signature"
  const [, key, day, region, signed, signature] = m as unknown as [string, string, string, string, string, string]
  if (key !== accessKeyId) return "unknown access key"
  const payload = String(req.headers["x-amz-content-sha256"] ?? "")
  if (payload.startsWith("STREAMING-")) return "aws-chunked body"
  if (payload !== "UNSIGNED-PAYLOAD" && payload !== sha256(body)) return "body does not match its signed hash"
  const url = new URL(req.url ?? "/", "http://x")
  const query = [...url.searchParams].map(([k, v]) => [rfc3986(k), rfc3986(v)] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1))
  const headers = signed.split(";")
  const canonical = [
    req.method,
    (req.url ?? "/").split("?")[0],
    query.map(([k, v]) => `${k}=${v}`).join("&"),
    ...headers.map((h) => `${h}:${String(req.headers[h] ?? "").trim().replace(/\s+/g, " ")}`),
    "",
    signed,
    payload
  ].join("\n")
  const amzDate = String(req.headers["x-amz-date"] ?? "")
  const scope = `${day}/${region}/s3/aws4_request`
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n")
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), "s3"), "aws4_request")
  const expected = hmac(signingKey, toSign)
  return timingSafeEqual(expected, Buffer.from(signature, "hex")) ? undefined : "signature does not match"
}

export const startS3 = async (): Promise<TestS3> => {
  const dir = mkdtempSync(join(tmpdir(), "convene-s3-"))
  const bucket = "convene-files"
  // s3rver knows one account (S3RVER) and checks its key, not its secret (decisions §14): the proxy checks the secret
  const accessKeyId = "S3RVER"
  const secretAccessKey = "S3RVER"
  const s3 = new S3rver({ address: "127.0.0.1", port: 0, directory: dir, silent: true, configureBuckets: [{ name: bucket, configs: [] }] })
  const inner = await new Promise<AddressInfo>((resolve, reject) => s3.run((err: Error | null, address: AddressInfo) => (err ? reject(err) : resolve(address))))
  const refused: Array<string> = []
  const proxy = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const problem = signatureProblem(req, body, accessKeyId, secretAccessKey)
      if (problem !== undefined) {
        refused.push(problem)
        res.writeHead(403, { "content-type": "application/xml" })
        return void res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>${problem}</Message></Error>`)
      }
      const forward = http.request({ host: inner.address, port: inner.port, method: req.method, path: req.url, headers: { ...req.headers, "content-length": String(body.length) } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
      })
      forward.on("error", () => {
        if (!res.headersSent) res.writeHead(502)
        res.end()
      })
      forward.end(body)
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
  return {
    endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    bucket,
    region: "eu-west-1",
    accessKeyId,
    secretAccessKey,
    dir,
    refused,
    close: async () => {
      proxy.closeAllConnections()
      await new Promise<void>((resolve) => proxy.close(() => resolve()))
      await new Promise<void>((resolve) => s3.close(() => resolve()))
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
