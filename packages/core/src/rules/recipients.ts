/** Who a write's recipients are (Loomio's announcement audiences), pure. */
import type { Membership, User } from "../domain/records.js"

/**
 * `recipient_audience: "group"` reaches the group's accepted human members: not pending invitations
 * (Loomio notifies accepted members), not bots.
 */
export const isGroupAudience = (m: Membership, u: User): boolean => m.accepted_at !== null && m.revoked_at === null && !u.bot
