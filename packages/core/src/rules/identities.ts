/** Signing in with an identity provider (decisions §10): when an identity links to an account, and what its groups claim changes. */
import type { Group, Id, Membership } from "../domain/records.js"
import type { ExternalIdentity } from "../ports/identity.js"
import { plainLineErrors } from "./values.js"
import { isEmail, normaliseEmail } from "./users.js"

/** The most claim values read at one sign-in (a provider listing thousands of groups is not listing convene's). */
export const CLAIMED_GROUPS_MAX = 500

/** The identity's address, normalised, when it is one; null otherwise. */
export const identityEmail = (identity: ExternalIdentity): string | null => {
  if (identity.email === null) return null
  const email = normaliseEmail(identity.email)
  return isEmail(email) ? email : null
}

/**
 * The address an identity may claim an account by: only one the provider says it verified. An unverified
 * address neither links to the account that holds it nor is given to a new account (else anyone could name
 * someone else's address at their provider and collect that person's invitations).
 */
export const verifiedEmail = (identity: ExternalIdentity): string | null => (identity.emailVerified ? identityEmail(identity) : null)

/** The provider's name for the person, when it is a usable name (one line, at most 100 characters). */
export const identityName = (identity: ExternalIdentity): string | null => {
  const name = identity.name?.trim().slice(0, 100) ?? ""
  return name !== "" && plainLineErrors(name, true) === null ? name : null
}

/** What one sign-in's groups claim changes (OIDC_GROUPS_CLAIM). */
export interface ClaimedGroupsPlan {
  /** groups the person joins, as accepted members, by the claim */
  readonly join: ReadonlyArray<Group>
  /** pending invitations to claimed groups, now accepted (made otherwise: never revoked by the claim) */
  readonly accept: ReadonlyArray<Membership>
  /** memberships the claim made whose group it no longer lists */
  readonly leave: ReadonlyArray<Id>
}

/**
 * `claimed`: the convene groups whose handle the claim lists; `active`: the person's active memberships;
 * `granted`: those of them an earlier claim made. A membership made otherwise is never revoked.
 */
export const planClaimedGroups = (
  claimed: ReadonlyArray<Group>,
  active: ReadonlyArray<Membership>,
  granted: ReadonlyArray<{ readonly membership_id: Id; readonly group_id: Id }>
): ClaimedGroupsPlan => {
  const byGroup = new Map(active.map((m) => [m.group_id, m]))
  const claimedIds = new Set(claimed.map((g) => g.id))
  return {
    join: claimed.filter((g) => !byGroup.has(g.id)),
    accept: claimed.flatMap((g) => {
      const m = byGroup.get(g.id)
      return m !== undefined && m.accepted_at === null ? [m] : []
    }),
    leave: granted.filter((g) => !claimedIds.has(g.group_id)).map((g) => g.membership_id)
  }
}
