import { group } from "../group.js"
import { ConveneApi } from "../api.js"
import { responseOptions } from "../envelope.js"
import { createDiscussionResponse, showDiscussionResponse } from "../b2/discussions.js"

/** Legacy create/show discussion: the b2 handlers, the key read by B1Auth. */
export const B1DiscussionsLive = group(ConveneApi, "b1.discussions", (handlers) =>
  handlers
    .handleRaw("create", () => createDiscussionResponse)
    .handleRaw("show", ({ path, urlParams }) => showDiscussionResponse(path.id, responseOptions(urlParams))))
