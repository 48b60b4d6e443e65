/**
 * A poll's results taken away (decisions §15: `/p/{key}/export.csv`, `/p/{key}/print`): the poll, its results per
 * option and every counted ballot, for those who may see the results now. An anonymous poll's ballots name no one:
 * neither the voter nor a delegate (rules/reveal.ts).
 */
import { Effect } from "effect"
import type { Stance } from "../../domain/polls.js"
import type { User } from "../../domain/records.js"
import { forbidden, type Forbidden, type NotFound } from "../../errors.js"
import { Store } from "../../ports/store.js"
import type { Access } from "../../rules/access.js"
import { revealDelegatedBy } from "../../rules/reveal.js"
import { ExportResults } from "../../policies.js"
import { showPoll, type ShownPoll } from "./read.js"

export interface ExportedBallot {
  readonly stance: Stance
  /** undefined in an anonymous poll */
  readonly voter: User | undefined
  /** the delegate whose vote cast it; undefined for the voter's own, and in an anonymous poll */
  readonly delegate: User | undefined
}

export interface ResultsExport {
  readonly view: ShownPoll & { readonly results: NonNullable<ShownPoll["results"]> }
  /** every counted ballot, oldest first */
  readonly ballots: ReadonlyArray<ExportedBallot>
}

export const exportResults = Effect.fnUntraced(function*(access: Access, ref: string): Effect.fn.Return<ResultsExport, NotFound | Forbidden, Store> {
  const store = yield* Store
  const view = yield* showPoll(access, ref)
  return yield* ExportResults.check([view.poll, view.my_stance], () => forbidden("The results are hidden for now: they are taken away when they may be seen"))(
    Effect.gen(function*() {
      yield* ExportResults.needed
      const cast = (yield* store.stances.latestOf([view.poll.id])).filter((s) => s.cast_at !== null).sort((a, b) => a.cast_at!.localeCompare(b.cast_at!) || a.id - b.id)
      const anonymous = view.poll.anonymous
      const ids = anonymous ? [] : [...new Set(cast.flatMap((s) => [s.participant_id, ...(s.delegated_by === null ? [] : [s.delegated_by])]))]
      const people = new Map((yield* store.users.byIds(ids)).map((u) => [u.id, u]))
      const ballots = cast.map((stance) => {
        const by = revealDelegatedBy(view.poll, stance)
        return { stance, voter: anonymous ? undefined : people.get(stance.participant_id), delegate: by === null ? undefined : people.get(by) }
      })
      return { view: view as ResultsExport["view"], ballots }
    }))
})
