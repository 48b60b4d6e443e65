import { execFileSync } from "node:child_process"
import t from "tap"

t.test("examples/embed runs against the built core", async (t) => {
  const out = execFileSync(process.execPath, ["examples/embed/index.mjs"], { encoding: "utf8" })
  t.match(out, /added_emails: \[ 'cy@example.org' \]/)
  t.match(out, /Board has 3 members/)
  t.match(out, /Bob may not: Forbidden User is not an admin/)
  t.match(out, /Bob may not close it: Forbidden\n/)
  t.match(out, /Adopt the budget\? closed: 1 of 3 voted\n/)
  t.match(out, /Late vote refused: Invalid \{"poll_id":\[".*closed/)
  t.match(out, /Outcome: Adopted\.\n/)
  t.match(out, /Bad input: Invalid \{"poll_type":\["must be one of proposal/)
})
