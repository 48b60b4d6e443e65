import Database from "better-sqlite3"
import fc from "fast-check"
import t from "tap"
import { Rules } from "@convene/core"

t.test("terms: pieces with a letter or digit, lower-cased; punctuation-only pieces dropped", async (t) => {
  t.same(Rules.searchTerms("  Budget  PLAN\tnext\nyear "), ["budget", "plan", "next", "year"])
  t.same(Rules.searchTerms("- * ( ) \" NEAR(a"), ["near(a"])
  t.same(Rules.searchTerms("a\u0000b"), ["a", "b"], "control characters separate")
  t.same(Rules.searchTerms(""), [])
})

t.test("the match expression quotes every term", async (t) => {
  t.equal(Rules.matchExpression(["budget"]), "\"budget\"*")
  t.equal(Rules.matchExpression(["to", "be"]), "\"to\" AND \"be\"", "short terms are not prefixes")
  t.equal(Rules.matchExpression(["say\"hi\""]), "\"say\"\"hi\"\"\"*", "quotes doubled")
  t.equal(Rules.matchExpression(["budjet", "plan"], new Map([["budjet", ["budget", "budgets"]]])),
    "(\"budjet\"* OR \"budget\" OR \"budgets\") AND \"plan\"*")
})

t.test("whatever a person types, the engine sees text and never fails", async (t) => {
  const db = new Database(":memory:")
  db.exec("CREATE VIRTUAL TABLE f USING fts5(content, tokenize = 'porter unicode61 remove_diacritics 2')")
  db.exec("CREATE VIRTUAL TABLE g USING fts5(word, content = '', tokenize = 'trigram')")
  db.prepare("INSERT INTO f (content) VALUES (?)").run("The budget for the garden, NEAR the river (draft)")
  const match = db.prepare("SELECT count(*) AS n FROM f WHERE f MATCH ?")
  const words = db.prepare("SELECT count(*) AS n FROM g WHERE g MATCH ?")
  const syntax = fc.constantFrom("\"", "*", "(", ")", "NEAR", "AND", "OR", "NOT", "-", "+", "^", ":", "{", "}", "content:", "\u0000", "\\", "'", " ")
  fc.assert(fc.property(fc.array(fc.oneof(syntax, fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })), { maxLength: 12 }), (parts) => {
    const q = parts.join("")
    const terms = Rules.searchTerms(q)
    if (terms.length === 0) return
    match.get(Rules.matchExpression(terms))
    const alts = new Map(terms.map((term) => [term, [term + "x"]]))
    match.get(Rules.matchExpression(terms, alts))
    for (const term of terms) if (Rules.fuzzyEligible(term)) words.get(Rules.trigramExpression(term))
  }), { numRuns: 2_000 })
  t.pass("2,000 random queries ran")
  t.equal((match.get(Rules.matchExpression(Rules.searchTerms("NEAR(budget garden)"))) as { n: number }).n, 0, "NEAR is a word here")
  t.equal((match.get(Rules.matchExpression(Rules.searchTerms("(draft)"))) as { n: number }).n, 1, "parentheses around a word are ignored")
  db.close()
})

t.test("trigrams, similarity and edit distance", async (t) => {
  t.same(Rules.trigramsOf("cat"), ["  c", " ca", "cat", "at "])
  t.equal(Rules.similarity("budget", "budget"), 1)
  t.ok(Rules.similarity("vote", "vite") >= 0.25, "padding keeps short words comparable")
  const table: Array<[string, string, number]> = [
    ["budget", "budget", 0], ["budjet", "budget", 1], ["buget", "budget", 1], ["budgets", "budget", 1],
    ["bugdet", "budget", 1], ["kitten", "sitting", 3], ["", "abc", 3], ["naïve", "naive", 1]
  ]
  for (const [a, b, d] of table) t.equal(Rules.editDistance(a, b), d, `${a} → ${b}`)
  fc.assert(fc.property(fc.string(), fc.string(), (a, b) => Rules.editDistance(a, b) === Rules.editDistance(b, a)))
})

t.test("fuzzy alternatives: a typo away, closest first, at most three", async (t) => {
  t.same(Rules.fuzzyAlternatives("budjet", ["budget", "budgets", "bud", "gadget", "budjet"]), ["budget"])
  t.same(Rules.fuzzyAlternatives("negotiatons", ["negotiations", "negotiation", "negotiate"]), ["negotiations", "negotiation"], "two typos for long words")
  t.same(Rules.fuzzyAlternatives("abcd", ["abce", "abcf", "abcg", "abch", "xbcd"]).length, 3)
  t.equal(Rules.fuzzyEligible("vote"), true)
  t.equal(Rules.fuzzyEligible("vot"), false, "three letters: too many neighbours")
  t.equal(Rules.fuzzyEligible("don't"), false, "not a plain word")
  t.same(Rules.fuzzyLengths("budget"), { min: 5, max: 7 })
})

t.test("highlight: HTML-escaped text, matched words in <b>", async (t) => {
  t.equal(Rules.highlightHtml(`a <script> & ${Rules.MARK_START}budget${Rules.MARK_END}\n\n"x"`), "a &lt;script&gt; &amp; <b>budget</b> &quot;x&quot;")
  t.equal(Rules.plainExcerpt("short"), "short")
  const long = Rules.plainExcerpt("word ".repeat(100))
  t.ok(long.length <= 241 && long.endsWith("…"))
})
