/** `convene init`: creates the database and its first administrator. */
import { Users } from "@convene/core"
import type { Command } from "commander"
import { type CommonOptions, withConvene } from "../common.js"
import { CliError } from "../output.js"
import { printUserWithKey, withIdentities } from "./users.js"

export const registerInit = (program: Command) =>
  program.command("init")
    .description("create the database and the first admin user; prints the user with its API key")
    .requiredOption("--admin-email <email>", "the administrator's e-mail address")
    .option("--admin-name <name>", "the administrator's name")
    .action((opts: CommonOptions & { adminEmail: string; adminName?: string }) =>
      withConvene(opts, async (c, out) => {
        // a second init on a live install is almost certainly a mistake (wrong --db)
        const existing = await c.run(Users.listUsers({}, { limit: 1, offset: 0 }))
        if (existing.total > 0) throw new CliError("the database already has users; use `convene users create` to add one")
        const { shown, apiKey } = await c.run(withIdentities(Users.createUser({
          email: opts.adminEmail,
          name: opts.adminName ?? null,
          is_admin: true
        })))
        printUserWithKey(out, shown, apiKey)
      }, { create: true }))
