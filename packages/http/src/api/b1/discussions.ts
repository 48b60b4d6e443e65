import { group } from "../group.js"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { createDiscussion, showDiscussion } from "../b2/discussions.js"

/** Legacy create/show discussion: the b2 handlers, the key read by B1Auth. */
export const B1DiscussionsLive = group(ConveneApi, "b1.discussions", requireAccess, (handlers) =>
  handlers.handle("create", createDiscussion).handle("show", showDiscussion))
