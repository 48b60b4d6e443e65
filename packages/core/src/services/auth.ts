import { Effect } from "effect"
import type { User } from "../domain/records.js"
import { forbidden, type Forbidden } from "../errors.js"
import { Store } from "../ports/store.js"
import { digestsEqual, hashApiKey } from "../rules/keys.js"

/**
 * Resolves a user API key. Unknown keys and deactivated users' keys are refused alike (403, as Loomio).
 * The lookup is by hash; the hash is then compared in constant time.
 */
export const authenticate = Effect.fnUntraced(function*(key: string | undefined): Effect.fn.Return<User, Forbidden, Store> {
  if (key === undefined || key.trim() === "") return yield* forbidden("An API key is required: send Authorization: Bearer <key>")
  const store = yield* Store
  const hash = hashApiKey(key)
  const found = yield* store.users.byApiKeyHash(hash)
  if (found === undefined || !digestsEqual(found.api_key_hash, hash) || found.user.deactivated_at !== null) {
    return yield* forbidden("Invalid API key")
  }
  return found.user
})
