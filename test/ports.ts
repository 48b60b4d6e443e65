import { createServer } from "node:net"

/** Below Linux's ephemeral range (32768-60999): a port that `listen(0)` never hands another test meanwhile. */
const LOW = 20_000
const HIGH = 32_000

const listens = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer()
    probe.once("error", () => resolve(false))
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)))
  })

/**
 * A free port for a server a test starts later (a child process, dovecot, a provider's redirect URI): chosen at
 * random outside the ephemeral range, since a port 0 gave out, once closed, can be given to any other test's
 * server before this one listens on it (seen: a `convene serve` refused with EADDRINUSE in CI).
 */
export const freePort = async (): Promise<number> => {
  for (let tries = 0; tries < 200; tries++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW))
    if (await listens(port)) return port
  }
  throw new Error(`no free port between ${LOW} and ${HIGH}`)
}
