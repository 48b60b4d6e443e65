/**
 * Where a CLI run writes and what it reads: the process's streams and environment for the binary, or
 * buffers and a given environment for an in-process run (tests, embedders). Held per run in an
 * AsyncLocalStorage, so two in-process runs never share output or exit codes.
 */
import { AsyncLocalStorage } from "node:async_hooks"

export interface CliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly env: Readonly<Record<string, string | undefined>>
  exitCode: number
}

export const processIo = (): CliIo => ({
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env,
  get exitCode() {
    return typeof process.exitCode === "number" ? process.exitCode : 0
  },
  set exitCode(code: number) {
    process.exitCode = code
  }
})

const current = new AsyncLocalStorage<CliIo>()
let fallback: CliIo | undefined

/** The io of the run in progress (the process's own outside any run). */
export const io = (): CliIo => current.getStore() ?? (fallback ??= processIo())

export const withIo = <A>(value: CliIo, body: () => Promise<A>): Promise<A> => current.run(value, body)
