import { group } from "../group.js"
import { type Access, Attachments, Discussions, Groups, Threads, type Topic } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { envelope, type ResponseOptions, responseOptions, wants } from "../envelope.js"
import { numericId } from "../request.js"
import { page } from "../params.js"
import {
  commentJson,
  groupJson,
  itemJson,
  outcomeJson,
  pollJson,
  pollOptionJson,
  reactionJson,
  stanceJson,
  topicJson,
  userJson
} from "../serializers.js"
import { discussionRecords, discussionRelated } from "./discussions.js"

/** `threads` (topic records) with their discussions, groups and authors. */
const threadsDocument = Effect.fnUntraced(function*(access: Access, opts: ResponseOptions, topics: ReadonlyArray<Topic>, total?: number) {
  const views = yield* Discussions.viewsOfTopics(topics)
  const rel = yield* discussionRelated(access, opts, views)
  return envelope(opts, "threads", topics.map(topicJson), [
    { type: "discussion", root: "discussions", records: yield* discussionRecords(access, views) },
    ...rel
  ], total)
})

/** The thread id from the path; a malformed id names no thread (404, like an invisible one). */
const threadId = (id: string) => numericId(id, "Thread")

export const B2ThreadsLive = group(ConveneApi, "b2.threads", requireAccess, (handlers) =>
  handlers
    .handle("listThreads", Effect.fnUntraced(function*({ access, urlParams }) {
      const opts = responseOptions(urlParams)
      const list = yield* Threads.listThreads(access, page(urlParams))
      return yield* threadsDocument(access, opts, list.records, list.total)
    }))
    .handle("getThread", Effect.fnUntraced(function*({ access, path, urlParams }) {
      const opts = responseOptions(urlParams)
      const { topic } = yield* Threads.findThread(access, yield* threadId(path.id))
      return yield* threadsDocument(access, opts, [topic])
    }))
    .handle("listThreadItems", Effect.fnUntraced(function*({ access, path, urlParams }) {
      const opts = responseOptions(urlParams)
      const t = yield* Threads.threadContents(access, yield* threadId(path.id))
      const groups = wants(opts, "group") && t.group !== undefined ? yield* Groups.viewGroups([t.group]) : []
      const polls = new Map(t.polls.map((v) => [v.poll.id, v]))
      const discussions = t.discussion === undefined ? [] : yield* discussionRecords(access, [{ discussion: t.discussion, topic: t.topic }])
      const pollFiles = yield* Attachments.filesOf("Poll", t.polls.map((v) => v.poll.id))
      const outcomeFiles = yield* Attachments.filesOf("Outcome", t.outcomes.map((o) => o.id))
      return envelope(opts, "items", t.items.map(itemJson), [
        { type: "discussion", root: "discussions", records: discussions },
        { type: "comment", root: "comments", records: t.comments.map((c) => commentJson(c, t.commentFiles.get(c.id) ?? [])) },
        { type: "poll", root: "polls", records: t.polls.map((v) => pollJson(access, v, pollFiles.get(v.poll.id) ?? [])) },
        { type: "poll_option", root: "poll_options", records: t.polls.flatMap((v) => v.options.map((o) => pollOptionJson(v, o))) },
        { type: "stance", root: "stances", records: t.stances.map((st) => stanceJson(access, polls.get(st.poll_id)!, st)) },
        { type: "outcome", root: "outcomes", records: t.outcomes.map((o) => outcomeJson(o, t.topic.group_id, outcomeFiles.get(o.id) ?? [])) },
        { type: "reaction", root: "reactions", records: t.reactions.map(reactionJson) },
        { type: "topic", root: "topics", records: [topicJson(t.topic)] },
        { type: "group", root: "groups", records: groups.map(groupJson) },
        { type: "user", root: "users", records: t.users.map((u) => userJson(access, u)) }
      ], t.items.length)
    }))
    .handle("getThreadMarkdown", Effect.fnUntraced(function*({ access, path }) {
      return { markdown: yield* Threads.threadMarkdown(access, yield* threadId(path.id)) }
    })))
