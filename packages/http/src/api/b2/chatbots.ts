import { group } from "../group.js"
import { type Access, Chatbots, type Inputs, invalid, Rules } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ALL, envelope } from "../envelope.js"
import { numericId } from "../request.js"
import { chatbotJson } from "../serializers.js"
import { Settings } from "../../settings.js"
import { sendJson } from "../../webhooks/send.js"
import { site } from "../../webhooks/site.js"

const document = (bots: ReadonlyArray<Parameters<typeof chatbotJson>[0]>) => envelope(ALL, "chatbots", bots.map(chatbotJson), [])

const chatbotId = (id: string) => numericId(id, "Chatbot")

// group_id is ignored: a webhook never moves
const update = Effect.fnUntraced(function*({ access, path, payload: { group_id: _ignored, ...input } }: {
  access: Access
  path: { id: string }
  payload: typeof Inputs.ChatbotUpdateInput.Type
}) {
  return document([yield* Chatbots.updateChatbot(access, yield* chatbotId(path.id), input)])
})

export const B2ChatbotsLive = group(ConveneApi, "b2.chatbots", requireAccess, (handlers) =>
  handlers
    .handle("listWebhooks", ({ access, urlParams }) => Effect.map(Chatbots.listChatbots(access, urlParams.group_id), document))
    .handle("createWebhook", ({ access, payload: { group_id, ...input } }) =>
      Effect.map(Chatbots.createChatbot(access, group_id, input), (bot) => document([bot])))
    .handle("updateWebhook", update)
    .handle("replaceWebhook", update)
    .handle("deleteWebhook", ({ access, path }) =>
      Effect.as(Effect.flatMap(chatbotId(path.id), (id) => Chatbots.deleteChatbot(access, id)), { success: true } as const))
    .handle("checkWebhook", Effect.fnUntraced(function*({ access, payload }) {
      const settings = yield* Settings
      const target = yield* Chatbots.checkChatbotDestination(access, payload.group_id, payload.server)
      const outcome = yield* Effect.promise(() =>
        sendJson(target, { method: "POST", url: payload.server, body: Rules.testMessage(site(settings.baseUrl)) }))
      if (!outcome.ok) {
        return yield* invalid("server", outcome.status === null ? `did not answer (${outcome.error})` : `answered ${outcome.status}`)
      }
      return { success: true, status: outcome.status } as const
    })))
