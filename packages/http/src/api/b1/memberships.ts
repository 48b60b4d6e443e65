import { group } from "../group.js"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { listMemberships, syncMemberships } from "../b2/memberships.js"

/** Legacy list and manage memberships (`emails`, `remove_absent` → added_emails/removed_emails): the b2 handlers. */
export const B1MembershipsLive = group(ConveneApi, "b1.memberships", requireAccess, (handlers) =>
  handlers.handle("list", listMemberships).handle("sync", syncMemberships))
