/** `convene groups …`: creating groups and changing their settings as the operator. */
import { GroupDeletion, Groups } from "@convene/core"
import type { Command } from "commander"
import { Effect } from "effect"
import { collect, type CommonOptions, findUserSpec, parseUserSpec, type UserSpec, withConvene } from "../common.js"
import { groupJson, groupLine } from "../format.js"
import { EXIT_USAGE, type Output } from "../output.js"

const printGroup = (out: Output, v: Groups.GroupView) => out.emit(groupJson(v), groupLine(v))

const SETTING_HELP = "a group setting, e.g. members_can_add_members=true (repeatable)"

interface CreateOptions extends CommonOptions {
  name: string
  owner: UserSpec
  parent?: string
  handle?: string
  public?: boolean
  setting?: ReadonlyArray<string>
}

export const registerGroups = (program: Command) => {
  const groups = program.command("groups").description("manage groups")

  groups.command("create")
    .description("create a group; the owner becomes its administrator")
    .requiredOption("--name <name>", "group name")
    .requiredOption("--owner <user>", "owner: user id, e-mail or identity:TYPE:UID", parseUserSpec)
    .option("--parent <group>", "parent group: id, key or handle")
    .option("--handle <handle>", "unique handle")
    .option("--public", "visible to the public, with public or private discussions")
    .option("--setting <key=value>", SETTING_HELP, collect)
    .action((opts: CreateOptions) =>
      withConvene(opts, async (c, out) => {
        const view = await c.run(Effect.gen(function*() {
          const settings = yield* Groups.parseSettings(opts.setting ?? [])
          const owner = yield* findUserSpec(opts.owner)
          const parent = opts.parent === undefined ? undefined : yield* Groups.findGroup(opts.parent)
          return yield* Groups.createGroup({ name: opts.name, owner, parent, handle: opts.handle, public: opts.public === true, settings })
        }))
        printGroup(out, view)
      }))

  groups.command("list")
    .description("list every group on the instance")
    .action((opts: CommonOptions) =>
      withConvene(opts, async (c, out) => {
        const list = await c.run(Groups.listAllGroups)
        out.emit(list.map(groupJson), list.map(groupLine))
      }))

  groups.command("show")
    .description("show one group with its counters")
    .argument("<group>", "group id, key or handle")
    .action((ref: string, opts: CommonOptions) =>
      withConvene(opts, async (c, out) => {
        const [view] = await c.run(Effect.flatMap(Groups.findGroup(ref), (g) => Groups.viewGroups([g])))
        printGroup(out, view!)
      }))

  groups.command("update")
    .description("change a group's settings")
    .argument("<group>", "group id, key or handle")
    .option("--setting <key=value>", SETTING_HELP, collect)
    .action((ref: string, opts: CommonOptions & { setting?: ReadonlyArray<string> }, cmd: Command) => {
      const pairs = opts.setting ?? []
      if (pairs.length === 0) cmd.error("error: nothing to update: pass --setting KEY=VALUE", { exitCode: EXIT_USAGE })
      return withConvene(opts, async (c, out) => {
        const view = await c.run(Effect.flatMap(Groups.parseSettings(pairs), (s) => Groups.updateGroupSettings(ref, s)))
        printGroup(out, view)
      })
    })

  groups.command("restore")
    .description("bring back a deleted group (and the subgroups deleted with it) before it is purged, 14 days after its deletion")
    .argument("<group>", "group id, key or handle")
    .action((ref: string, opts: CommonOptions) =>
      withConvene(opts, async (c, out) => {
        const [view] = await c.run(Effect.flatMap(GroupDeletion.restoreGroup(ref), (g) => Groups.viewGroups([g])))
        printGroup(out, view!)
      }))
}
