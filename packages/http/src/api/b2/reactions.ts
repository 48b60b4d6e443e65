import { group } from "../group.js"
import { Reactions } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ALL, envelope } from "../envelope.js"
import { numericId } from "../request.js"
import { reactionJson, userJson } from "../serializers.js"

export const B2ReactionsLive = group(ConveneApi, "b2.reactions", requireAccess, (handlers) =>
  handlers
    .handle("createReaction", ({ access, payload }) =>
      Effect.map(Reactions.addReaction(access, payload), (reaction) =>
        envelope(ALL, "reactions", [reactionJson(reaction)], [
          { type: "user", root: "users", records: [userJson(access, access.user)] }
        ])))
    .handle("deleteReaction", ({ access, path }) =>
      Effect.as(Effect.flatMap(numericId(path.id, "Reaction"), (id) => Reactions.removeReaction(access, id)), { success: true } as const)))
