import { group } from "../group.js"
import { type Access, Discussions, Inputs, Volumes } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ALL, envelope, type Related, type ResponseOptions, responseOptions, wants } from "../envelope.js"
import { ok, respond } from "../errors.js"
import { decode, inputFields } from "../request.js"
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
const one = Effect.fnUntraced(function*<E, R>(run: (access: Access) => Effect.Effect<View, E, R>, opts: ResponseOptions = ALL) {
  const access = yield* requireAccess
  const view = yield* run(access)
  return ok(yield* document(access, opts, [view]))
})

const decodeInput = decode(Inputs.DiscussionInput)
const input = Effect.flatMap(inputFields("discussion"), decodeInput)

/** POST and GET one discussion, shared with /api/b1. */
export const createDiscussionResponse = respond(one((access) => Effect.flatMap(input, (i) => Discussions.createDiscussion(access, i))))
export const showDiscussionResponse = (id: string, opts: ResponseOptions) =>
  respond(one((access) => Discussions.showDiscussion(access, id), opts))

const update = (id: string) => respond(one((access) => Effect.flatMap(input, (i) => Discussions.updateDiscussion(access, id, i))))

export const B2DiscussionsLive = group(ConveneApi, "b2.discussions", (handlers) =>
  handlers
    .handleRaw("listDiscussions", Effect.fnUntraced(function*({ urlParams }) {
      const { access, groupId, opts, page } = yield* groupListRequest(urlParams)
      const list = yield* Discussions.listDiscussions(access, groupId, urlParams.status ?? "open", page)
      return ok(yield* document(access, opts, list.records, list.total))
    }, respond))
    .handleRaw("createDiscussion", () => createDiscussionResponse)
    .handleRaw("getDiscussion", ({ path, urlParams }) => showDiscussionResponse(path.id, responseOptions(urlParams)))
    .handleRaw("updateDiscussion", ({ path }) => update(path.id))
    .handleRaw("replaceDiscussion", ({ path }) => update(path.id))
    .handleRaw("deleteDiscussion", ({ path }) => respond(one((access) => Discussions.deleteDiscussion(access, path.id))))
    .handleRaw("closeDiscussion", ({ path }) => respond(one((access) => Discussions.setClosed(access, path.id, true))))
    .handleRaw("reopenDiscussion", ({ path }) => respond(one((access) => Discussions.setClosed(access, path.id, false))))
    .handleRaw("setDiscussionVolume", ({ path }) =>
      respond(Effect.gen(function*() {
        const access = yield* requireAccess
        const { volume } = yield* Effect.flatMap(inputFields("volume"), decodeVolume)
        const { discussion, topic } = yield* Discussions.showDiscussion(access, path.id)
        const set = yield* Volumes.setThreadVolume(access, topic.id, volume)
        return ok({ volume: { discussion_id: discussion.id, volume: set.thread ?? volume, effective: set.effective } })
      }))))

const decodeVolume = decode(Inputs.VolumeInput)
