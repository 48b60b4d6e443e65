import { group } from "../group.js"
import { type Access, Inputs, Outcomes, Polls, Stances } from "@convene/core"
import { Effect } from "effect"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { ALL, envelope, type ResponseOptions, responseOptions, wants } from "../envelope.js"
import { type ApiError, ok, respond } from "../errors.js"
import { decode, inputFields, numericId } from "../request.js"
import { groupListRequest } from "../lists.js"
import { groupJson, outcomeJson, pollJson, pollOptionJson, stanceJson, topicJson, userJson } from "../serializers.js"

type View = Polls.PollView

/** Polls with their options, the ballots the reader may see, current outcomes, threads, groups and people. */
const document = (access: Access, opts: ResponseOptions, views: ReadonlyArray<View>, total?: number) =>
  Effect.map(Polls.related(access, views, { groups: wants(opts, "group"), users: wants(opts, "user") }), ({ groups, users }) =>
    envelope(opts, "polls", views.map((v) => pollJson(access, v)), [
      { type: "poll_option", root: "poll_options", records: views.flatMap((v) => v.options.map((o) => pollOptionJson(v, o))) },
      {
        type: "stance",
        root: "stances",
        records: views.flatMap((v) => (v.my_stance === undefined ? [] : [stanceJson(access, v, v.my_stance)]))
      },
      { type: "outcome", root: "outcomes", records: views.flatMap((v) => (v.outcome === undefined ? [] : [outcomeJson(v.outcome)])) },
      { type: "topic", root: "topics", records: views.map((v) => topicJson(v.topic)) },
      { type: "group", root: "groups", records: groups.map(groupJson) },
      { type: "user", root: "users", records: users.map((u) => userJson(access, u)) }
    ], total))

/** Runs a use case that yields one poll and answers with the poll document. */
const one = Effect.fnUntraced(function*<E extends ApiError, R>(run: (access: Access) => Effect.Effect<View, E, R>, opts: ResponseOptions = ALL) {
  const access = yield* requireAccess
  const view = yield* run(access)
  return ok(yield* document(access, opts, [view]))
}, respond)

const decodeCreate = decode(Inputs.PollInput)
const decodePatch = decode(Inputs.PollPatchInput)
const decodeReopen = decode(Inputs.PollReopenInput)
const decodeStance = decode(Inputs.StanceInput)
const decodeOutcome = decode(Inputs.OutcomeInput)
const decodeOutcomePatch = decode(Inputs.OutcomePatchInput)

const update = (id: string) =>
  one((access) => Effect.flatMap(Effect.flatMap(inputFields("poll"), decodePatch), (i) => Polls.updatePoll(access, id, i)))

/** POST and GET one poll, shared with /api/b1. */
export const createPollResponse =
  one((access) => Effect.flatMap(Effect.flatMap(inputFields("poll"), decodeCreate), (i) => Polls.createPoll(access, i)))
export const showPollResponse = (id: string, opts: ResponseOptions) => one((access) => Polls.showPoll(access, id), opts)

export const B2PollsLive = group(ConveneApi, "b2.polls", (handlers) =>
  handlers
    .handleRaw("listPolls", Effect.fnUntraced(function*({ urlParams }) {
      const { access, groupId, opts, page } = yield* groupListRequest(urlParams)
      const list = yield* Polls.listPolls(access, groupId, urlParams.status ?? "active", page)
      return ok(yield* document(access, opts, list.records, list.total))
    }, respond))
    .handleRaw("createPoll", () => createPollResponse)
    .handleRaw("getPoll", ({ path, urlParams }) => showPollResponse(path.id, responseOptions(urlParams)))
    .handleRaw("updatePoll", ({ path }) => update(path.id))
    .handleRaw("replacePoll", ({ path }) => update(path.id))
    .handleRaw("deletePoll", ({ path }) => one((access) => Polls.deletePoll(access, path.id)))
    .handleRaw("closePoll", ({ path }) => one((access) => Polls.closePoll(access, path.id)))
    .handleRaw("reopenPoll", ({ path }) =>
      one((access) => Effect.flatMap(Effect.flatMap(inputFields("poll"), decodeReopen), (i) => Polls.reopenPoll(access, path.id, i.closing_at))))
    .handleRaw("castVote", () =>
      one((access) => Effect.map(Effect.flatMap(Effect.flatMap(inputFields("stance"), decodeStance), (i) => Stances.castVote(access, i)), (r) => r.view)))
    .handleRaw("createOutcome", () =>
      one((access) =>
        Effect.map(
          Effect.flatMap(Effect.flatMap(inputFields("outcome"), decodeOutcome), ({ poll_id, ...i }) => Outcomes.createOutcome(access, poll_id, i)),
          (r) => r.view
        )))
    .handleRaw("updateOutcome", ({ path }) =>
      one((access) =>
        Effect.map(
          Effect.flatMap(
            Effect.zip(numericId(path.id, "Outcome"), Effect.flatMap(inputFields("outcome"), decodeOutcomePatch)),
            ([id, i]) => Outcomes.updateOutcome(access, id, i)
          ),
          (r) => r.view
        ))))
