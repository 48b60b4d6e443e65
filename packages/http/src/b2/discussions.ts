import { HttpApiBuilder } from "@effect/platform"
import { type Access, Discussions, type ThreadStatus } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi, DiscussionInput } from "../api.js"
import { requireAccess } from "../auth.js"
import { envelope, type Related, type ResponseOptions, responseOptions, wants } from "../envelope.js"
import { ok, respond } from "../errors.js"
import { decode, enumParam, inputFields, query } from "../request.js"
import { groupListRequest } from "../lists.js"
import { discussionJson, groupJson, topicJson, userJson } from "../serializers.js"

type View = Discussions.DiscussionView

/** Topics, groups and authors of discussions, as related records of any document. */
export const discussionRelated = (access: Access, opts: ResponseOptions, views: ReadonlyArray<View>, withTopics: boolean) =>
  Effect.map(
    Discussions.related(views, { groups: wants(opts, "group"), users: wants(opts, "user") }),
    ({ groups, users }): ReadonlyArray<Related> => [
      ...(withTopics ? [{ type: "topic", root: "topics", records: views.map((v) => topicJson(v.topic)) }] : []),
      { type: "group", root: "groups", records: groups.map(groupJson) },
      { type: "user", root: "users", records: users.map((u) => userJson(access, u)) }
    ]
  )

const document = (access: Access, opts: ResponseOptions, views: ReadonlyArray<View>, total?: number) =>
  Effect.map(discussionRelated(access, opts, views, true), (rel) => envelope(opts, "discussions", views.map(discussionJson), rel, total))

/** Runs a use case on one discussion and answers with the discussion document. */
const one = <E, R>(run: (access: Access) => Effect.Effect<View, E, R>) =>
  Effect.gen(function*() {
    const access = yield* requireAccess
    const opts = yield* Effect.flatMap(query, responseOptions)
    const view = yield* run(access)
    return ok(yield* document(access, opts, [view]))
  })

const decodeInput = decode(DiscussionInput)
const input = Effect.map(Effect.flatMap(inputFields("discussion"), decodeInput), (i): Discussions.DiscussionInput => ({
  ...i,
  title: i.title === null ? "" : i.title
}))

/** Loomio also knows `locked`/`unlocked` for closed/open. */
const STATUS: Record<string, ThreadStatus> = { open: "open", unlocked: "open", closed: "closed", locked: "closed", all: "all" }

/** POST and GET one discussion, shared with /api/b1. */
export const createDiscussionResponse = respond(one((access) => Effect.flatMap(input, (i) => Discussions.createDiscussion(access, i))))
export const showDiscussionResponse = (id: string) => respond(one((access) => Discussions.showDiscussion(access, id)))

export const B2DiscussionsLive = HttpApiBuilder.group(ConveneApi, "b2.discussions", (handlers) =>
  handlers
    .handleRaw("list", () =>
      respond(Effect.gen(function*() {
        const { access, groupId, opts, page, q } = yield* groupListRequest
        const status = yield* enumParam<ThreadStatus>(q, "status", STATUS, "open")
        const list = yield* Discussions.listDiscussions(access, groupId, status, page)
        return ok(yield* document(access, opts, list.records, list.total))
      })))
    .handleRaw("create", () => createDiscussionResponse)
    .handleRaw("show", ({ path }) => showDiscussionResponse(path.id))
    .handleRaw("update", ({ path }) => respond(one((access) => Effect.flatMap(input, (i) => Discussions.updateDiscussion(access, path.id, i)))))
    .handleRaw("put", ({ path }) => respond(one((access) => Effect.flatMap(input, (i) => Discussions.updateDiscussion(access, path.id, i)))))
    .handleRaw("delete", ({ path }) => respond(one((access) => Discussions.deleteDiscussion(access, path.id))))
    .handleRaw("close", ({ path }) => respond(one((access) => Discussions.setClosed(access, path.id, true))))
    .handleRaw("reopen", ({ path }) => respond(one((access) => Discussions.setClosed(access, path.id, false)))))
