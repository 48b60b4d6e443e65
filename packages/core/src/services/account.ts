/**
 * A person's own account (decisions §12, "Your account"): **Download my data** and **Delete my account**. The
 * operator's versions (users.ts) act on anyone; these act on the signed-in person alone (the OwnAccount policy).
 */
import { Effect } from "effect"
import type { Group, Membership, User } from "../domain/records.js"
import type { Poll } from "../domain/polls.js"
import { forbidden, type Forbidden, type Invalid, invalid, type NotFound } from "../errors.js"
import { OwnAccount, type Permit } from "../policies.js"
import { Store, type WrittenBy } from "../ports/store.js"
import type { Access } from "../rules/access.js"
import { normaliseEmail } from "../rules/users.js"
import { redactUser } from "./users.js"

/** What **Download my data** holds: the profile, the memberships with their groups, and all the person wrote. */
export interface AccountData extends WrittenBy {
  readonly user: User
  readonly memberships: ReadonlyArray<{ readonly membership: Membership; readonly group: Group }>
  /** the keys links are made of: each written record's discussion or poll */
  readonly discussionKeys: ReadonlyMap<number, string>
  readonly pollKeys: ReadonlyMap<number, string>
}

const gather = Effect.fnUntraced(function*(access: Access): Effect.fn.Return<AccountData, never, Store | Permit<"OwnAccount">> {
  yield* OwnAccount.needed
  const store = yield* Store
  const user = access.user
  const written = yield* store.users.writtenBy(user.id)
  const groups = new Map((yield* store.groups.byIds([...access.memberships.keys()])).map((g) => [g.id, g]))
  const memberships = [...access.memberships.values()].flatMap((membership) => {
    const group = groups.get(membership.group_id)
    return group === undefined ? [] : [{ membership, group }]
  })
  const discussions = yield* store.discussions.byTopicIds([...new Set(written.comments.map((c) => c.topic_id))])
  const polls: ReadonlyArray<Poll> = yield* store.polls.byIds([...new Set([...written.stances, ...written.outcomes].map((r: { poll_id: number }) => r.poll_id))])
  return {
    ...written,
    user,
    memberships,
    discussionKeys: new Map([...written.discussions, ...discussions].map((d) => [d.id, d.key])),
    pollKeys: new Map([...written.polls, ...polls].map((p) => [p.id, p.key]))
  }
})

/** **Download my data**: everything about the signed-in person, to take away. */
export const accountData = (access: Access): Effect.Effect<AccountData, Forbidden, Store> =>
  OwnAccount.check([access, access.user], () => forbidden("Sign in to download your data"))(gather(access))

const closing = Effect.fnUntraced(function*(access: Access): Effect.fn.Return<User, NotFound, Store | Permit<"OwnAccount">> {
  yield* OwnAccount.needed
  return yield* redactUser({ id: access.user.id })
})

/**
 * **Delete my account**, confirmed by typing one's e-mail address: as `convene users redact` (name and address gone,
 * what the person wrote kept under a placeholder name, every session and key ended).
 */
export const deleteOwnAccount = Effect.fnUntraced(function*(access: Access, confirmation: string): Effect.fn.Return<User, Invalid | Forbidden | NotFound, Store> {
  if (access.user.email === null || normaliseEmail(confirmation) !== access.user.email) return yield* invalid("email", "is not your e-mail address")
  return yield* OwnAccount.check([access, access.user], () => forbidden("Only you can delete your account"))(closing(access))
})


