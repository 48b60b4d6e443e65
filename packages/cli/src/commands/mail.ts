/** `convene mail list`: the outbox of invitations and notifications (decisions.md §2). */
import { Mail } from "@convene/core"
import type { Command } from "commander"
import { allPages, type CommonOptions, withConvene } from "../common.js"
import { mailLine } from "../format.js"

export const registerMail = (program: Command) => {
  const mail = program.command("mail").description("the mail outbox")

  mail.command("list")
    .description("show the mail outbox, oldest first")
    .action((opts: CommonOptions) =>
      withConvene(opts, async (c, out) => {
        const messages = await allPages((page) => c.run(Mail.listMail(page)))
        out.emit(messages, messages.map(mailLine))
      }))
}
