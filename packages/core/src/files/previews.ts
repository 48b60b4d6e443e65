/**
 * Image previews (decisions §14, Loomio's variant): at most 1280 px either way, never enlarged, turned as the camera
 * said, re-encoded as WebP (quality 85) with no metadata (camera, place, time), by `sharp` off the main thread. A file
 * sharp cannot read, or one of more than 50 megapixels, gets none; the upload goes on without it.
 */
import type { FileStorageService } from "../ports/files.js"

export interface Preview {
  readonly key: string
  readonly width: number
  readonly height: number
}

const MAX_PIXELS = 50_000_000

export const makePreview = async (storage: FileStorageService, from: string, key: string): Promise<Preview | undefined> => {
  const { default: sharp } = await import("sharp")
  const source = await storage.read(from)
  if (source === undefined) return undefined
  try {
    const chunks: Array<Buffer> = []
    for await (const c of source) chunks.push(Buffer.from(c as Uint8Array))
    const image = sharp(Buffer.concat(chunks), { limitInputPixels: MAX_PIXELS, animated: false })
    const meta = await image.metadata()
    const out = await image.rotate().resize({ width: 1280, height: 1280, fit: "inside", withoutEnlargement: true }).webp({ quality: 85 }).toBuffer()
    await storage.put(key, out)
    const turned = (meta.orientation ?? 1) >= 5
    return { key, width: (turned ? meta.height : meta.width) ?? 0, height: (turned ? meta.width : meta.height) ?? 0 }
  } catch {
    return undefined
  }
}
