/**
 * The S3-compatible file store (decisions §14): Loomio's `AWS_BUCKET`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_REGION`, and `AWS_ENDPOINT` for MinIO, Garage or Ceph (then path-style), through `@aws-sdk/client-s3`. An upload
 * streams into `tmp/…` as a multipart upload (`@aws-sdk/lib-storage`: parts of 5 MiB, the least S3 takes, one in
 * flight, so memory stays flat: bench/files.js) while it is hashed and counted; it is kept by a server-side copy under
 * its key. Checksums are sent only where the service requires them, so bodies go as plain bytes (no `aws-chunked`
 * framing, which some services store as is).
 * The SDK is loaded when the store is first used: a command that never touches files does not pay for it.
 */
import type { S3Client } from "@aws-sdk/client-s3"
import { randomBytes } from "node:crypto"
import { PassThrough, type Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { checkedKey, type FileStorageService, type Received, ReceiveError } from "../ports/files.js"
import { measuring } from "./directory.js"

export interface S3Settings {
  readonly bucket: string
  readonly region: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** MinIO, Garage, Ceph …: their address, and path-style requests */
  readonly endpoint?: string
}


const missing = (e: unknown): boolean => {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } }
  return err.name === "NoSuchKey" || err.name === "NotFound" || err.$metadata?.httpStatusCode === 404
}

export const s3Storage = (settings: S3Settings): FileStorageService => {
  const sdk = (async () => {
    const [s3, storage] = await Promise.all([import("@aws-sdk/client-s3"), import("@aws-sdk/lib-storage")])
    const client: S3Client = new s3.S3Client({
      region: settings.region,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint, forcePathStyle: true }),
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED"
    })
    return { ...s3, Upload: storage.Upload, client }
  })()
  const Bucket = settings.bucket
  const remove = async (key: string) => {
    const { client, DeleteObjectCommand } = await sdk
    await client.send(new DeleteObjectCommand({ Bucket, Key: checkedKey(key) }))
  }
  return {
    kind: "s3",
    describe: `s3://${Bucket}${settings.endpoint === undefined ? "" : ` at ${settings.endpoint}`}`,
    receive: async (source, limit): Promise<Received> => {
      const { client, Upload } = await sdk
      const temp = `tmp/${randomBytes(16).toString("hex")}`
      const m = measuring(limit)
      const body = new PassThrough()
      const upload = new Upload({ client, params: { Bucket, Key: temp, Body: body }, partSize: 5 * 1024 * 1024, queueSize: 1, leavePartsOnError: false })
      const through = pipeline(source, m.transform, body)
      try {
        await Promise.all([through, upload.done()])
      } catch (e) {
        await upload.abort().catch(() => undefined)
        body.destroy()
        await remove(temp).catch(() => undefined)
        throw e instanceof ReceiveError ? e : new ReceiveError({ _tag: "Aborted", cause: e })
      }
      return { temp, ...m.result() }
    },
    keep: async (temp, key) => {
      const { client, CopyObjectCommand } = await sdk
      await client.send(new CopyObjectCommand({ Bucket, Key: checkedKey(key), CopySource: `${Bucket}/${checkedKey(temp)}` }))
      await remove(temp)
    },
    discard: (temp) => remove(temp).catch((e: unknown) => (missing(e) ? undefined : Promise.reject(e))),
    read: async (key, range) => {
      const { client, GetObjectCommand } = await sdk
      try {
        const got = await client.send(new GetObjectCommand({ Bucket, Key: checkedKey(key), ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }) }))
        return got.Body as Readable
      } catch (e) {
        if (missing(e)) return undefined
        throw e
      }
    },
    put: async (key, bytes) => {
      const { client, PutObjectCommand } = await sdk
      await client.send(new PutObjectCommand({ Bucket, Key: checkedKey(key), Body: bytes, ContentLength: bytes.length }))
    },
    remove,
    exists: async (key) => {
      const { client, HeadObjectCommand } = await sdk
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: checkedKey(key) }))
        return true
      } catch (e) {
        if (missing(e)) return false
        throw e
      }
    }
  }
}
