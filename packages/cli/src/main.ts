/** The `convene` binary: the command line on the process's own streams and environment. */
import { processIo } from "./io.js"
import { runCli } from "./program.js"

const io = processIo()
await runCli(process.argv.slice(2), io)
