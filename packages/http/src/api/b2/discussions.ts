import { group } from "../group.js"
import { type Access, type AttachedFile, Attachments, Discussions, Reading, Volumes } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ALL, envelope, type ResponseOptions, responseOptions, wants } from "../envelope.js"
import { groupListRequest } from "../lists.js"
import { discussionJson, groupJson, topicJson, userJson } from "../serializers.js"

type View = Discussions.DiscussionView

/**
 * Discussion records with the caller's reader fields (decisions §13) and their files: every document that carries
 * discussions. A write that knows the caller's read state as it left it (`known`), or the discussion's files
 * (`knownFiles`), does not read them again.
 */
export const discussionRecords = (access: Access, views: ReadonlyArray<View>, known?: Reading.ReadView, knownFiles?: ReadonlyArray<AttachedFile>) =>
  Effect.zipWith(
    known !== undefined && views.length === 1 ? Effect.succeed(undefined) : Reading.readViews(access, views.map((v) => v.topic)),
    knownFiles !== undefined && views.length === 1
      ? Effect.succeed(new Map([[views[0]!.discussion.id, knownFiles]]))
      : Attachments.filesOf("Discussion", views.map((v) => v.discussion.id)),
    (reads, files) => views.map((v) => discussionJson(v, reads === undefined ? known : reads.get(v.topic.id), files.get(v.discussion.id) ?? []))
  )

/** Groups and authors of discussions, as related records of any document. */
export const discussionRelated = (access: Access, opts: ResponseOptions, views: ReadonlyArray<View>) =>
  Effect.map(
    Discussions.related(views, { groups: wants(opts, "group"), users: wants(opts, "user") }),
    ({ groups, users }) =>
      [
        { type: "group", root: "groups", records: groups.map(groupJson) },
        { type: "user", root: "users", records: users.map((u) => userJson(access, u)) }
      ] as const
  )

const document = (access: Access, opts: ResponseOptions, views: ReadonlyArray<View>, total?: number) =>
  Effect.zipWith(discussionRelated(access, opts, views), discussionRecords(access, views), (rel, records) =>
    envelope(opts, "discussions", records, [
      { type: "topic", root: "topics", records: views.map((v) => topicJson(v.topic)) },
      ...rel
    ], total))

/** One discussion's document. */
const one = (access: Access, opts: ResponseOptions = ALL) => (view: View) => document(access, opts, [view])

/** POST and GET one discussion, shared with /api/b1. */
export const createDiscussion = ({ access, payload }: { access: Access; payload: Discussions.DiscussionInput }) =>
  Effect.flatMap(Discussions.createDiscussion(access, payload), one(access))
export const showDiscussion = ({ access, path, urlParams }: { access: Access; path: { id: string }; urlParams: Parameters<typeof responseOptions>[0] }) =>
  Effect.flatMap(Discussions.showDiscussion(access, path.id), one(access, responseOptions(urlParams)))

const update = ({ access, path, payload }: { access: Access; path: { id: string }; payload: Discussions.DiscussionInput }) =>
  Effect.flatMap(Discussions.updateDiscussion(access, path.id, payload), one(access))

export const B2DiscussionsLive = group(ConveneApi, "b2.discussions", requireAccess, (handlers) =>
  handlers
    .handle("listDiscussions", Effect.fnUntraced(function*({ access, urlParams }) {
      const { groupId, opts, page } = groupListRequest(urlParams)
      const list = yield* Discussions.listDiscussions(access, groupId, urlParams.status ?? "open", page)
      return yield* document(access, opts, list.records, list.total)
    }))
    .handle("createDiscussion", createDiscussion)
    .handle("getDiscussion", showDiscussion)
    .handle("updateDiscussion", update)
    .handle("replaceDiscussion", update)
    .handle("deleteDiscussion", ({ access, path }) => Effect.flatMap(Discussions.deleteDiscussion(access, path.id), one(access)))
    .handle("closeDiscussion", ({ access, path }) => Effect.flatMap(Discussions.setClosed(access, path.id, true), one(access)))
    .handle("reopenDiscussion", ({ access, path }) => Effect.flatMap(Discussions.setClosed(access, path.id, false), one(access)))
    .handle("pinDiscussion", ({ access, path }) => Effect.flatMap(Discussions.setPinned(access, path.id, true), one(access)))
    .handle("unpinDiscussion", ({ access, path }) => Effect.flatMap(Discussions.setPinned(access, path.id, false), one(access)))
    .handle("moveDiscussion", ({ access, path, payload }) => Effect.flatMap(Discussions.moveDiscussion(access, path.id, String(payload.group_id)), one(access)))
    .handle("listDiscussionVersions", ({ access, path }) =>
      Effect.map(Discussions.discussionEdits(access, path.id), ({ versions }) => ({ versions })))
    .handle("markDiscussionAsRead", Effect.fnUntraced(function*({ access, path, payload }) {
      const view = yield* Discussions.showDiscussion(access, path.id)
      yield* Reading.markRangesRead(access, view.topic.id, payload.ranges)
      return yield* one(access)(view)
    }))
    .handle("setDiscussionVolume", Effect.fnUntraced(function*({ access, path, payload }) {
      const { discussion, topic } = yield* Discussions.showDiscussion(access, path.id)
      const set = yield* Volumes.setThreadVolume(access, topic.id, payload.volume)
      return { volume: { discussion_id: discussion.id, volume: set.thread ?? payload.volume, effective: set.effective } }
    })))
