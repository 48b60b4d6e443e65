/**
 * A throw-away IMAP server for the tests: Debian's dovecot (dovecot-imapd) on a free port of 127.0.0.1, with a
 * configuration of its own in a temporary directory (plain-text login, one mailbox per user, no TLS), stopped
 * and removed when the test file ends.
 */
import { execFileSync, spawn } from "node:child_process"
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createConnection } from "node:net"
import { freePort } from "./ports.js"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import t from "tap"

export interface TestImap {
  readonly port: number
  /** `imap://USER:PASSWORD@127.0.0.1:PORT/INBOX` */
  readonly url: (user: string) => string
}

const PASSWORD = "imap-password-of-the-tests"


const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = createConnection({ port, host: "127.0.0.1" }, () => {
      c.destroy()
      resolve(true)
    })
    c.once("error", () => resolve(false))
  })

export const startImap = async (users: ReadonlyArray<string>): Promise<TestImap> => {
  const dir = mkdtempSync(join(tmpdir(), "convene-imap-"))
  const port = await freePort()
  const root = userInfo().uid === 0
  // as root, mail belongs to the dovecot user; otherwise to whoever runs the tests
  const owner = root ? Number(execFileSync("id", ["-u", "dovecot"]).toString()) : userInfo().uid
  const group = root ? Number(execFileSync("id", ["-g", "dovecot"]).toString()) : userInfo().gid
  const me = userInfo().username
  // dovecot's own processes (as the dovecot user) read the password file in it
  chmodSync(dir, 0o755)
  mkdirSync(join(dir, "mail"))
  chownSync(join(dir, "mail"), owner, group)
  writeFileSync(join(dir, "passwd"), users.map((u) => `${u}:{PLAIN}${PASSWORD}::::::`).join("\n") + "\n")
  writeFileSync(join(dir, "dovecot.conf"), `
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
default_login_user = ${root ? "dovenull" : me}
default_internal_user = ${root ? "dovecot" : me}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${owner} gid=${group} home=${dir}/mail/%u
}
mail_location = maildir:${dir}/mail/%u/Maildir
service imap-login {
  inet_listener imap {
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
`)
  const child = spawn("/usr/sbin/dovecot", ["-F", "-c", join(dir, "dovecot.conf")], { stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (d) => (stderr += d))
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
  t.teardown(stop)
  process.once("exit", stop)
  const until = Date.now() + 15_000
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > until) throw new Error(`dovecot did not start: ${stderr}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { port, url: (user) => `imap://${encodeURIComponent(user)}:${PASSWORD}@127.0.0.1:${port}/INBOX` }
}
