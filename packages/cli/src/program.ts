/**
 * The `convene` command line as a function: `runCli(argv, io)` parses and runs one command and resolves
 * with its exit code (decisions.md §4): 0 success, 1 domain error (message on stderr), 2 bad usage.
 * The binary calls it with the process's streams; tests call it in-process with buffers.
 */
import { Command, CommanderError } from "commander"
import { readFileSync } from "node:fs"
import { registerBackup } from "./commands/backup.js"
import { registerDoctor } from "./commands/doctor.js"
import { registerFiles } from "./commands/files.js"
import { registerGroups } from "./commands/groups.js"
import { registerInit } from "./commands/init.js"
import { registerMail } from "./commands/mail.js"
import { registerMembers } from "./commands/members.js"
import { registerServe } from "./commands/serve.js"
import { registerTransfer } from "./commands/transfer.js"
import { registerUsers } from "./commands/users.js"
import { registerWebhooks } from "./commands/webhooks.js"
import { addCommonOptions } from "./common.js"
import { type CliIo, io, withIo } from "./io.js"
import { EXIT_OK, EXIT_USAGE } from "./output.js"

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }

/** A fresh program per run: commander keeps parsed option values on its command objects. */
const makeProgram = (): Command => {
  const program = new Command("convene")
    .description("a self-hostable group decision service with a Loomio-compatible API")
    .version(version)
    // set before any subcommand is added: `.command()` copies these settings to each subcommand
    .exitOverride()
    .configureOutput({ writeOut: (s) => io().stdout(s), writeErr: (s) => io().stderr(s) })
    .showHelpAfterError("(add --help for usage)")
  registerServe(program)
  registerInit(program)
  registerUsers(program)
  registerGroups(program)
  registerMembers(program)
  registerMail(program)
  registerWebhooks(program)
  registerBackup(program)
  registerDoctor(program)
  registerTransfer(program)
  registerFiles(program)
  addCommonOptions(program)
  return program
}

/** Runs one command line (`argv` without node and the script) and resolves with its exit code. */
export const runCli = (argv: ReadonlyArray<string>, cliIo: CliIo): Promise<number> =>
  withIo(cliIo, async () => {
    try {
      await makeProgram().parseAsync([...argv], { from: "user" })
    } catch (e) {
      // commander has already printed its message (or the help); only the exit code is ours to set
      if (!(e instanceof CommanderError)) throw e
      cliIo.exitCode = e.exitCode === 0 ? EXIT_OK : EXIT_USAGE
    }
    return cliIo.exitCode
  })

export type { CliIo }
