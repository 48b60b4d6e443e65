import { group } from "../group.js"
import { ConveneApi } from "../api.js"
import { responseOptions } from "../envelope.js"
import { createPollResponse, showPollResponse } from "../b2/polls.js"

/** Legacy create/show poll: the b2 handlers, the key read by B1Auth. */
export const B1PollsLive = group(ConveneApi, "b1.polls", (handlers) =>
  handlers
    .handleRaw("create", () => createPollResponse)
    .handleRaw("show", ({ path, urlParams }) => showPollResponse(path.id, responseOptions(urlParams))))
