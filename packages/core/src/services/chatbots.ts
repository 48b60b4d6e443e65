/** Group webhooks ("chatbots"): group administrators only, destinations checked as public before saving. */
import { Effect } from "effect"
import type { Group, Id } from "../domain/records.js"
import {
  type Chatbot,
  CHATBOT_KINDS,
  type ChatbotKind,
  EVENT_KINDS,
  type EventKind,
  WEBHOOK_KINDS,
  type WebhookKind
} from "../domain/webhooks.js"
import { forbidden, type Forbidden, type Invalid, invalid, notFound, type NotFound } from "../errors.js"
import { Store } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { ManageWebhooks, type Permit } from "../policies.js"
import { nowIso } from "./common.js"
import { checkDestination, type CheckedDestination, UrlPolicy } from "./urls.js"
import { isOneOf } from "../rules/values.js"
import * as Inputs from "../domain/inputs.js"

/** A webhook's settings (declared once in domain/inputs.ts); its group is given apart. */
export type ChatbotInput = Omit<typeof Inputs.ChatbotUpdateInput.Type, "group_id">

type Managed<A, E, R> = Effect.Effect<A, E | NotFound | Forbidden, Exclude<R, Permit<"ManageWebhooks">>>

/** `step` on the group, where ManageWebhooks allows the caller to manage its webhooks. */
const managing = <A, E, R>(access: Access, groupId: Id, step: (group: Group) => Effect.Effect<A, E, R>): Managed<A, E, R | Store> =>
  Effect.flatMap(Store, (store) =>
    Effect.flatMap(store.groups.byId(groupId), (group): Managed<A, E, R> =>
      group === undefined
        ? Effect.fail(notFound(`Group ${groupId} not found`))
        : ManageWebhooks.check([access, group], () => forbidden("Only group administrators manage webhooks"))(step(group))))

/** `step` on the chatbot, where ManageWebhooks allows the caller to manage its group's webhooks. */
const managingBot = <A, E, R>(access: Access, id: Id, step: (bot: Chatbot) => Effect.Effect<A, E, R>): Managed<A, E, R | Store> =>
  Effect.flatMap(Store, (store) =>
    Effect.flatMap(store.chatbots.byId(id), (bot): Managed<A, E, R | Store> =>
      bot === undefined ? Effect.fail(notFound(`Chatbot ${id} not found`)) : managing(access, bot.group_id, () => step(bot))))

/** Field rules of a chatbot, applied to the record as it would be after the change. */
const validate = Effect.fnUntraced(function*(c: { name: string; kind: string; webhook_kind: string | null; event_kinds: ReadonlyArray<string> }) {
  if (c.name.trim() === "") return yield* invalid("name", "can't be blank")
  if (!isOneOf(CHATBOT_KINDS, c.kind)) return yield* invalid("kind", `must be one of ${CHATBOT_KINDS.join(", ")}`)
  if (c.kind === "matrix" && c.webhook_kind !== null) {
    return yield* invalid("webhook_kind", "must be empty for a matrix integration")
  }
  if (c.webhook_kind !== null && !isOneOf(WEBHOOK_KINDS, c.webhook_kind)) {
    return yield* invalid("webhook_kind", `must be one of ${WEBHOOK_KINDS.join(", ")}`)
  }
  const unknown = c.event_kinds.filter((k) => !isOneOf(EVENT_KINDS, k))
  if (unknown.length > 0) return yield* invalid("event_kinds", `unknown event kind: ${unknown.join(", ")}`)
  return {
    name: c.name.trim(),
    kind: c.kind as ChatbotKind,
    webhook_kind: c.webhook_kind as WebhookKind | null,
    event_kinds: [...new Set(c.event_kinds)] as Array<EventKind>
  }
})

const checkServer = (server: string): Effect.Effect<CheckedDestination, Invalid, UrlPolicy> =>
  Effect.mapError(checkDestination(server), (reason) => invalid("server", reason))

export const listChatbots = (access: Access, groupId: Id) =>
  managing(access, groupId, (g) => Effect.zipRight(ManageWebhooks.needed, Effect.flatMap(Store, (store) => store.chatbots.ofGroup(g.id))))

export const createChatbot = Effect.fnUntraced(function*(
  access: Access,
  groupId: Id,
  input: ChatbotInput
): Effect.fn.Return<Chatbot, NotFound | Forbidden | Invalid, Store | UrlPolicy> {
  return yield* managing(access, groupId, (group) => Effect.gen(function*() {
    yield* ManageWebhooks.needed
    const store = yield* Store
    if (input.name === undefined) return yield* invalid("name", "can't be blank")
    if (input.server === undefined) return yield* invalid("server", "can't be blank")
    const kind = input.kind ?? "webhook"
    const fields = yield* validate({
      name: input.name,
      kind,
      webhook_kind: input.webhook_kind !== undefined ? input.webhook_kind : kind === "webhook" ? "markdown" : null,
      event_kinds: input.event_kinds ?? []
    })
    // resolving the host takes time: do it before taking the write permit
    yield* checkServer(input.server)
    return yield* store.transaction(Effect.gen(function*() {
      return yield* store.chatbots.insert({
        ...fields,
        group_id: group.id,
        author_id: access.user.id,
        server: input.server!,
        notification_only: input.notification_only ?? false,
        created_at: yield* nowIso
      })
    }))
  }))
})

/** Changes a chatbot; its group never changes. */
export const updateChatbot = Effect.fnUntraced(function*(
  access: Access,
  id: Id,
  input: ChatbotInput
): Effect.fn.Return<Chatbot, NotFound | Forbidden | Invalid, Store | UrlPolicy> {
  const store = yield* Store
  const bot = yield* managingBot(access, id, Effect.succeed)
  const kind = input.kind ?? bot.kind
  const fields = yield* validate({
    name: input.name ?? bot.name,
    kind,
    webhook_kind: input.webhook_kind !== undefined
      ? input.webhook_kind
      : kind === "matrix" ? null : bot.webhook_kind ?? "markdown",
    event_kinds: input.event_kinds ?? bot.event_kinds
  })
  if (input.server !== undefined) yield* checkServer(input.server)
  // asked again in the transaction: the caller may have stopped being an administrator meanwhile
  return yield* store.transaction(managingBot(access, id, () => Effect.gen(function*() {
    yield* ManageWebhooks.needed
    yield* store.chatbots.update(id, {
      ...fields,
      ...(input.server === undefined ? {} : { server: input.server }),
      ...(input.notification_only === undefined ? {} : { notification_only: input.notification_only }),
      updated_at: yield* nowIso
    })
    return (yield* store.chatbots.byId(id))!
  })))
})

/** Deletes the chatbot and its undelivered deliveries: future deliveries stop. */
export const deleteChatbot = Effect.fnUntraced(function*(access: Access, id: Id): Effect.fn.Return<void, NotFound | Forbidden, Store> {
  const store = yield* Store
  yield* store.transaction(managingBot(access, id, () => Effect.zipRight(ManageWebhooks.needed, store.chatbots.delete(id))))
})

/** `chatbots/check`: an administrator of the group may test a public destination, saved or not. */
export const checkChatbotDestination = (
  access: Access,
  groupId: Id,
  server: string
): Effect.Effect<CheckedDestination, NotFound | Forbidden | Invalid, Store | UrlPolicy> =>
  managing(access, groupId, () => checkServer(server))
