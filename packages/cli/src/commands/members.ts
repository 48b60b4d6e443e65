/** `convene members …`: operator adds and revokes memberships. */
import { Groups, type Membership, Memberships } from "@convene/core"
import type { Command } from "commander"
import { Effect } from "effect"
import { allPages, type CommonOptions, findUserSpec, parseUserSpec, type UserSpec, withConvene } from "../common.js"
import { membershipLine } from "../format.js"
import type { Output } from "../output.js"

interface MemberOptions extends CommonOptions {
  group: string
  user: UserSpec
}

const printMembership = (out: Output, m: Membership) => out.emit(m, membershipLine(m))

const target = (cmd: Command) =>
  cmd
    .requiredOption("--group <group>", "group id, key or handle")
    .requiredOption("--user <user>", "user id, e-mail or identity:TYPE:UID", parseUserSpec)

const resolve = (opts: MemberOptions) => Effect.all({ group: Groups.findGroup(opts.group), user: findUserSpec(opts.user) })

export const registerMembers = (program: Command) => {
  const members = program.command("members").description("manage group memberships")

  target(members.command("add"))
    .description("add a member (or, with --pending, invite them: recorded in the mail outbox)")
    .option("--admin", "as a group administrator")
    .option("--delegate", "as a delegate")
    .option("--pending", "as a pending invitation")
    .action((opts: MemberOptions & { admin?: boolean; delegate?: boolean; pending?: boolean }) =>
      withConvene(opts, async (c, out) => {
        const m = await c.run(Effect.flatMap(resolve(opts), ({ group, user }) =>
          Memberships.addMember({ group, user, admin: opts.admin === true, delegate: opts.delegate === true, pending: opts.pending === true })))
        printMembership(out, m)
      }))

  members.command("list")
    .description("list a group's live memberships (pending invitations included)")
    .requiredOption("--group <group>", "group id, key or handle")
    .action((opts: CommonOptions & { group: string }) =>
      withConvene(opts, async (c, out) => {
        const group = await c.run(Groups.findGroup(opts.group))
        const list = await allPages((page) => c.run(Memberships.listGroupMembers(group.id, page)))
        out.emit(list, list.map(membershipLine))
      }))

  target(members.command("remove"))
    .description("revoke a membership")
    .action((opts: MemberOptions) =>
      withConvene(opts, async (c, out) => {
        const m = await c.run(Effect.flatMap(resolve(opts), ({ group, user }) => Memberships.removeMember(group, user)))
        printMembership(out, m)
      }))
}
