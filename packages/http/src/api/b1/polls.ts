import { group } from "../group.js"
import { ConveneApi } from "../api.js"
import { requireAccess } from "../auth.js"
import { createPoll, showPoll } from "../b2/polls.js"

/** Legacy create/show poll: the b2 handlers, the key read by B1Auth. */
export const B1PollsLive = group(ConveneApi, "b1.polls", requireAccess, (handlers) =>
  handlers.handle("create", createPoll).handle("show", showPoll))
