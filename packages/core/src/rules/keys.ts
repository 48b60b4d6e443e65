import * as crypto from "node:crypto"

const { createHash, randomBytes, timingSafeEqual } = crypto

/** API keys are 32 random bytes; only their SHA-256 is stored. */
export const newApiKey = (): string => randomBytes(32).toString("base64url")

/** Node's one-shot digest (20.12 and later): a third of a Hash object's cost, and every request hashes its key. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash
export const hashApiKey = (key: string): string =>
  oneShot !== undefined ? oneShot("sha256", key, "hex") : createHash("sha256").update(key, "utf8").digest("hex")

/** Constant-time comparison of two secrets of any length (both are hashed to equal length first). */
export const secretsEqual = (a: string, b: string): boolean =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest())

/**
 * Constant-time comparison of two SHA-256 hex digests (a stored hash and the hash of what was sent): both
 * are 64 characters, so unlike `secretsEqual` nothing needs hashing again (a light read paid two digests).
 */
export const digestsEqual = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, "latin1"), Buffer.from(b, "latin1"))

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
/** Short URL-safe record keys, like Loomio's. */
export const newRecordKey = (length = 8): string => {
  const bytes = randomBytes(length)
  let out = ""
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length]
  return out
}
