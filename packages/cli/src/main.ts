/**
 * The `convene` binary. Exit codes (decisions.md §4): 0 success, 1 domain error (message on stderr),
 * 2 bad usage (unknown command or option, missing or invalid argument).
 */
import { Command, CommanderError } from "commander"
import { readFileSync } from "node:fs"
import { registerGroups } from "./commands/groups.js"
import { registerInit } from "./commands/init.js"
import { registerMail } from "./commands/mail.js"
import { registerMembers } from "./commands/members.js"
import { registerServe } from "./commands/serve.js"
import { registerUsers } from "./commands/users.js"
import { registerWebhooks } from "./commands/webhooks.js"
import { addCommonOptions } from "./common.js"
import { EXIT_OK, EXIT_USAGE } from "./output.js"

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }

const program = new Command("convene")
  .description("a self-hostable group decision service with a Loomio-compatible API")
  .version(version)
  // set before any subcommand is added: `.command()` copies these settings to each subcommand
  .exitOverride()
  .showHelpAfterError("(add --help for usage)")

registerServe(program)
registerInit(program)
registerUsers(program)
registerGroups(program)
registerMembers(program)
registerMail(program)
registerWebhooks(program)
addCommonOptions(program)

try {
  await program.parseAsync(process.argv)
} catch (e) {
  // commander has already printed its message (or the help); only the exit code is ours to set
  if (!(e instanceof CommanderError)) throw e
  process.exitCode = e.exitCode === 0 ? EXIT_OK : EXIT_USAGE
}
