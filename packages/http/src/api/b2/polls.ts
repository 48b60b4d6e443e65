import { group } from "../group.js"
import { type Access, Attachments, type Inputs, Messages, Outcomes, Polls, Stances } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ALL, envelope, type ResponseOptions, responseOptions, wants } from "../envelope.js"
import { groupListRequest } from "../lists.js"
import { numericId } from "../request.js"
import { groupJson, outcomeJson, pollJson, pollOptionJson, stanceJson, topicJson, userJson } from "../serializers.js"

type View = Polls.PollView

/** Polls with their options, the ballots the reader may see, current outcomes, threads, groups and people. */
const document = (access: Access, opts: ResponseOptions, views: ReadonlyArray<View>, total?: number) =>
  Effect.map(Effect.all([
    Polls.related(access, views, { groups: wants(opts, "group"), users: wants(opts, "user") }),
    Attachments.filesOf("Poll", views.map((v) => v.poll.id)),
    Attachments.filesOf("Outcome", views.flatMap((v) => (v.outcome === undefined ? [] : [v.outcome.id])))
  ]), ([{ groups, users }, pollFiles, outcomeFiles]) =>
    envelope(opts, "polls", views.map((v) => pollJson(access, v, pollFiles.get(v.poll.id) ?? [])), [
      { type: "poll_option", root: "poll_options", records: views.flatMap((v) => v.options.map((o) => pollOptionJson(v, o))) },
      {
        type: "stance",
        root: "stances",
        records: views.flatMap((v) => (v.my_stance === undefined ? [] : [stanceJson(access, v, v.my_stance)]))
      },
      { type: "outcome", root: "outcomes", records: views.flatMap((v) => (v.outcome === undefined ? [] : [outcomeJson(v.outcome, v.poll.group_id, outcomeFiles.get(v.outcome.id) ?? [])])) },
      { type: "topic", root: "topics", records: views.map((v) => topicJson(v.topic)) },
      { type: "group", root: "groups", records: groups.map(groupJson) },
      { type: "user", root: "users", records: users.map((u) => userJson(access, u)) }
    ], total))

/** One poll's document. */
const one = (access: Access, opts: ResponseOptions = ALL) => (view: View) => document(access, opts, [view])

interface ById<P = unknown> {
  readonly access: Access
  readonly path: { readonly id: string }
  readonly payload: P
}

/** POST and GET one poll, shared with /api/b1. */
export const createPoll = ({ access, payload }: { access: Access; payload: typeof Inputs.PollInput.Type }) =>
  Effect.flatMap(Polls.createPoll(access, payload), one(access))
export const showPoll = ({ access, path, urlParams }: Omit<ById, "payload"> & { urlParams: Parameters<typeof responseOptions>[0] }) =>
  Effect.flatMap(Polls.showPoll(access, path.id), one(access, responseOptions(urlParams)))

const update = ({ access, path, payload }: ById<typeof Inputs.PollPatchInput.Type>) =>
  Effect.flatMap(Polls.updatePoll(access, path.id, payload), one(access))

export const B2PollsLive = group(ConveneApi, "b2.polls", requireAccess, (handlers) =>
  handlers
    .handle("listPollTemplates", Effect.fnUntraced(function*({ access, urlParams }) {
      const t = Messages.mailTranslator(access.user)
      const list = urlParams.group_id === undefined ? Polls.pollTemplates(t) : yield* Polls.groupPollTemplates(access, String(urlParams.group_id), t)
      return {
        poll_templates: list.map((p) => ({
          id: p.id, key: p.key, source_key: p.source_key, poll_type: p.poll_type, name: p.name, process_subtitle: p.process, details: p.details, options: p.options,
          default_duration_in_days: p.default_duration_in_days, position: p.position, settings: p.settings as Record<string, string | number | boolean>
        }))
      }
    }))
    .handle("listPolls", Effect.fnUntraced(function*({ access, urlParams }) {
      const { groupId, opts, page } = groupListRequest(urlParams)
      const list = yield* Polls.listPolls(access, groupId, urlParams.status ?? "active", page)
      return yield* document(access, opts, list.records, list.total)
    }))
    .handle("createPoll", createPoll)
    .handle("getPoll", showPoll)
    .handle("updatePoll", update)
    .handle("replacePoll", update)
    .handle("deletePoll", ({ access, path }) => Effect.flatMap(Polls.deletePoll(access, path.id), one(access)))
    .handle("remindVoters", ({ access, path }) => Effect.map(Polls.remindVoters(access, path.id), ({ reminded }) => ({ reminded })))
    .handle("closePoll", ({ access, path }) => Effect.flatMap(Polls.closePoll(access, path.id), one(access)))
    .handle("reopenPoll", ({ access, path, payload }) => Effect.flatMap(Polls.reopenPoll(access, path.id, payload.closing_at), one(access)))
    .handle("castVote", ({ access, payload }) => Effect.flatMap(Stances.castVote(access, payload), (r) => one(access)(r.view)))
    .handle("createOutcome", ({ access, payload: { poll_id, ...input } }) =>
      Effect.flatMap(Outcomes.createOutcome(access, poll_id, input), (r) => one(access)(r.view)))
    .handle("updateOutcome", ({ access, path, payload }) =>
      Effect.flatMap(
        Effect.flatMap(numericId(path.id, "Outcome"), (id) => Outcomes.updateOutcome(access, id, payload)),
        (r) => one(access)(r.view)
      )))
