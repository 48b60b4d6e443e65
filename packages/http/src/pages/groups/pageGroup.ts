/** A group a page acts on, where the group page's rules (the core's answers) let this reader do the action named. */
import { Groups } from "@convene/core"
import { Effect } from "effect"
import type { Kit, Reader } from "../layout/kit.js"

export const groupFor = (kit: Kit, who: Reader, key: string, allowed: (may: Groups.GroupPage["may"]) => boolean) =>
  kit.run(Effect.flatMap(Groups.groupPage(who.access, key), (page) => (allowed(page.may) ? Effect.succeed(page.group) : Effect.fail({ _tag: "Forbidden" as const }))))
