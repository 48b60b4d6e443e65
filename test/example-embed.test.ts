import { execFileSync } from "node:child_process"
import t from "tap"

t.test("examples/embed runs against the built core", async (t) => {
  const out = execFileSync(process.execPath, ["examples/embed/index.mjs"], { encoding: "utf8" })
  t.match(out, /added_emails: \[ 'cy@example.org' \]/)
  t.match(out, /Board has 3 members/)
  t.match(out, /Bob may not: Forbidden User is not an admin/)
})
