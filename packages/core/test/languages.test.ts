/**
 * The pages' languages (decisions §9): every shipped catalog has every key of the English one, each message
 * is valid ICU MessageFormat, takes the same arguments as the English message, and formats.
 */
import { IntlMessageFormat } from "intl-messageformat"
import t from "tap"
import { Messages } from "@convene/core"

type Node = { type: number; value?: string; options?: Record<string, { value: Array<Node> }>; children?: Array<Node> }

/** The argument names a message's syntax tree uses (plain, number, date, plural, select, selectordinal). */
const argumentsOf = (nodes: ReadonlyArray<Node>, into = new Set<string>()): Set<string> => {
  for (const n of nodes) {
    if (n.type >= 1 && n.type <= 6 && n.value !== undefined) into.add(n.value)
    for (const option of Object.values(n.options ?? {})) argumentsOf(option.value, into)
    if (n.children) argumentsOf(n.children, into)
  }
  return into
}

const { CATALOGS } = Messages
const en = CATALOGS.en
const keys = Object.keys(en).sort()

for (const [locale, catalog] of Object.entries(CATALOGS)) {
  t.test(`${locale}: complete and well-formed`, async (t) => {
    t.same(Object.keys(catalog).sort(), keys, "exactly the English keys")
    for (const key of keys) {
      const message = (catalog as Record<string, string>)[key]!
      t.ok(message.trim().length > 0, `${key}: not empty`)
      const ast = new IntlMessageFormat(message, locale, undefined, { ignoreTag: true }).getAst() as unknown as Array<Node>
      const wanted = argumentsOf(new IntlMessageFormat((en as Record<string, string>)[key]!, "en", undefined, { ignoreTag: true }).getAst() as unknown as Array<Node>)
      t.same([...argumentsOf(ast)].sort(), [...wanted].sort(), `${key}: the same arguments as English`)
      const values = Object.fromEntries([...wanted].map((a) => [a, /count|cast|voters|total|left|rank/.test(a) ? 2 : "X"]))
      t.doesNotThrow(() => new IntlMessageFormat(message, locale, undefined, { ignoreTag: true }).format(values), `${key}: formats`)
    }
  })
}

t.test("a missing key fails this test", async (t) => {
  const broken = { ...CATALOGS.de } as Record<string, string>
  delete broken["poll.vote"]
  t.not(Object.keys(broken).sort().join(), keys.join(), "the key lists differ")
})
