import { group } from "../group.js"
import { Inputs, Reactions } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ALL, envelope } from "../envelope.js"
import { ok, respond } from "../errors.js"
import { decode, inputFields, numericId } from "../request.js"
import { reactionJson, userJson } from "../serializers.js"

const decodeInput = decode(Inputs.ReactionInput)

export const B2ReactionsLive = group(ConveneApi, "b2.reactions", (handlers) =>
  handlers
    .handleRaw("createReaction", Effect.fnUntraced(function*() {
      const access = yield* requireAccess
      const input = yield* Effect.flatMap(inputFields("reaction"), decodeInput)
      const reaction = yield* Reactions.addReaction(access, input)
      return ok(envelope(ALL, "reactions", [reactionJson(reaction)], [
        { type: "user", root: "users", records: [userJson(access, access.user)] }
      ]))
    }, respond))
    .handleRaw("deleteReaction", Effect.fnUntraced(function*({ path }) {
      const access = yield* requireAccess
      yield* Reactions.removeReaction(access, yield* numericId(path.id, "Reaction"))
      return ok({ success: true })
    }, respond)))
