import { group } from "../group.js"
import { Chatbots, Inputs, invalid, Rules } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ALL, envelope } from "../envelope.js"
import { ok, respond } from "../errors.js"
import { decode, inputFields, numericId } from "../request.js"
import { chatbotJson } from "../serializers.js"
import { Settings } from "../settings.js"
import { sendJson } from "../webhooks/send.js"
import { site } from "../webhooks/site.js"

const decodeCreate = decode(Inputs.ChatbotCreateInput)
const decodeUpdate = decode(Inputs.ChatbotUpdateInput)
const decodeCheck = decode(Inputs.ChatbotCheckInput)

const document = (bots: ReadonlyArray<Parameters<typeof chatbotJson>[0]>) =>
  ok(envelope(ALL, "chatbots", bots.map(chatbotJson), []))

const chatbotId = (id: string) => numericId(id, "Chatbot")

const update = Effect.fnUntraced(function*(id: string) {
  const access = yield* requireAccess
  const { group_id: _ignored, ...input } = yield* Effect.flatMap(inputFields("chatbot"), decodeUpdate)
  return document([yield* Chatbots.updateChatbot(access, yield* chatbotId(id), input)])
}, respond)

export const B2ChatbotsLive = group(ConveneApi, "b2.chatbots", (handlers) =>
  handlers
    .handleRaw("listWebhooks", Effect.fnUntraced(function*({ urlParams }) {
      const access = yield* requireAccess
      return document(yield* Chatbots.listChatbots(access, urlParams.group_id))
    }, respond))
    .handleRaw("createWebhook", Effect.fnUntraced(function*() {
      const access = yield* requireAccess
      const { group_id, ...input } = yield* Effect.flatMap(inputFields("chatbot"), decodeCreate)
      return document([yield* Chatbots.createChatbot(access, group_id, input)])
    }, respond))
    .handleRaw("updateWebhook", ({ path }) => update(path.id))
    .handleRaw("replaceWebhook", ({ path }) => update(path.id))
    .handleRaw("deleteWebhook", Effect.fnUntraced(function*({ path }) {
      const access = yield* requireAccess
      yield* Chatbots.deleteChatbot(access, yield* chatbotId(path.id))
      return ok({ success: true })
    }, respond))
    .handleRaw("checkWebhook", Effect.fnUntraced(function*() {
      const access = yield* requireAccess
      const settings = yield* Settings
      const input = yield* Effect.flatMap(inputFields("chatbot"), decodeCheck)
      const target = yield* Chatbots.checkChatbotDestination(access, input.group_id, input.server)
      const outcome = yield* Effect.promise(() =>
        sendJson(target, { method: "POST", url: input.server, body: Rules.testMessage(site(settings.baseUrl)) }))
      if (!outcome.ok) {
        return yield* invalid("server", outcome.status === null ? `did not answer (${outcome.error})` : `answered ${outcome.status}`)
      }
      return ok({ success: true, status: outcome.status })
    }, respond)))
