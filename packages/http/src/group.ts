/**
 * An endpoint group's handlers, declared once for both ways a request reaches them: `HttpApiBuilder.group`
 * (the platform's app, which also documents them) and the lean path (serve.ts), which runs the same
 * handler functions without the platform's per-request machinery.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import type { Effect } from "effect"

/** One group as the lean path needs it: its declaration and the build function that names its handlers. */
export interface GroupHandlers {
  readonly group: HttpApiGroup.HttpApiGroup.AnyWithProps
  readonly build: (handlers: HandlerRecorder) => HandlerRecorder | Effect.Effect<HandlerRecorder, never, unknown>
}

/** What a build function is given on the lean path: it records each endpoint's handler by name. */
export interface HandlerRecorder {
  readonly handleRaw: (name: string, handler: (request: Record<string, unknown>) => unknown) => HandlerRecorder
}

const groups = new WeakMap<object, GroupHandlers>()

/** `HttpApiBuilder.group`, keeping the build function for the lean path. */
export const group: typeof HttpApiBuilder.group = (api, name, build) => {
  const layer = HttpApiBuilder.group(api, name, build)
  groups.set(layer, { group: (api.groups as unknown as Record<string, HttpApiGroup.HttpApiGroup.AnyWithProps>)[name]!, build: build as never })
  return layer
}

/** The handlers of a layer made by `group` (a layer made otherwise has none to give: a programming error). */
export const groupHandlers = (layer: object): GroupHandlers => {
  const found = groups.get(layer)
  if (found === undefined) throw new Error("an API group's layer was not made by group() (group.ts)")
  return found
}
