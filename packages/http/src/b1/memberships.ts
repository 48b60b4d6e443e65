import { group } from "../group.js"
import { ConveneApi } from "../api.js"
import { listMembershipsResponse, syncMembershipsResponse } from "../b2/memberships.js"

/** Legacy list and manage memberships (`emails`, `remove_absent` → added_emails/removed_emails): the b2 handlers. */
export const B1MembershipsLive = group(ConveneApi, "b1.memberships", (handlers) =>
  handlers
    .handleRaw("list", ({ urlParams }) => listMembershipsResponse(urlParams))
    .handleRaw("sync", () => syncMembershipsResponse))
