import { HttpApiBuilder } from "@effect/platform"
import { Chatbots, invalid, Rules } from "@convene/core"
import { Effect } from "effect"
import { ChatbotCheckInput, ChatbotCreateInput, ChatbotUpdateInput, ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { envelope } from "../envelope.js"
import { ok, respond } from "../errors.js"
import { decode, inputFields, numericId, query, requiredIntParam } from "../request.js"
import { chatbotJson } from "../serializers.js"
import { Settings } from "../settings.js"
import { sendJson } from "../webhooks/send.js"
import { site } from "../webhooks/site.js"

const decodeCreate = decode(ChatbotCreateInput)
const decodeUpdate = decode(ChatbotUpdateInput)
const decodeCheck = decode(ChatbotCheckInput)

const document = (bots: ReadonlyArray<Parameters<typeof chatbotJson>[0]>) =>
  ok(envelope({ exclude: new Set() }, "chatbots", bots.map(chatbotJson), []))

const chatbotId = (id: string) => numericId(id, "Chatbot")

const update = (id: string) =>
  respond(Effect.gen(function*() {
    const access = yield* requireAccess
    const { group_id: _ignored, ...input } = yield* Effect.flatMap(inputFields("chatbot"), decodeUpdate)
    return document([yield* Chatbots.updateChatbot(access, yield* chatbotId(id), input)])
  }))

export const B2ChatbotsLive = HttpApiBuilder.group(ConveneApi, "b2.chatbots", (handlers) =>
  handlers
    .handleRaw("list", () =>
      respond(Effect.gen(function*() {
        const access = yield* requireAccess
        const groupId = yield* Effect.flatMap(query, (q) => requiredIntParam(q, "group_id"))
        return document(yield* Chatbots.listChatbots(access, groupId))
      })))
    .handleRaw("create", () =>
      respond(Effect.gen(function*() {
        const access = yield* requireAccess
        const { group_id, ...input } = yield* Effect.flatMap(inputFields("chatbot"), decodeCreate)
        return document([yield* Chatbots.createChatbot(access, group_id, input)])
      })))
    .handleRaw("update", ({ path }) => update(path.id))
    .handleRaw("put", ({ path }) => update(path.id))
    .handleRaw("delete", ({ path }) =>
      respond(Effect.gen(function*() {
        const access = yield* requireAccess
        yield* Chatbots.deleteChatbot(access, yield* chatbotId(path.id))
        return ok({ success: true })
      })))
    .handleRaw("check", () =>
      respond(Effect.gen(function*() {
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
      }))))
