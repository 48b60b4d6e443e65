import t from "tap"
import { type Chatbot, type EventMessage, Rules } from "@convene/core"
import { matchExact } from "../../../test/match.js"

t.test("isBlockedAddress: every blocked range, and public addresses pass", async (t) => {
  const blocked = [
    "0.1.2.3", "10.0.0.1", "100.64.0.1", "127.0.0.1", "127.255.255.254", "169.254.169.254", "172.16.0.1", "172.31.255.255",
    "192.0.0.8", "192.168.1.1", "198.18.0.1", "198.19.255.255", "224.0.0.1", "239.1.1.1", "240.0.0.1", "255.255.255.255",
    "::", "::1", "fc00::1", "fd12:3456::1", "fe80::1", "ff02::1", "::7f00:1", "64:ff9b::1.2.3.4", "64:ff9b:1::1", "2001:0::1", "2002::1",
    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "not-an-ip", "",
    // documentation, benchmarking and other reserved ranges outside Loomio's list: only global unicast passes
    "192.0.2.1", "198.51.100.7", "203.0.113.5", "2001:db8::1", "fec0::1", "100::1", "::ffff:0:8.8.8.8", "2001:2::1",
    "3fff::1", "5f00::1", "4000::1"
  ]
  for (const a of blocked) t.ok(Rules.isBlockedAddress(a), `${a} blocked`)
  const allowed = ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "192.0.3.1", "203.0.114.5", "2606:4700::1111", "2a00:1450::1", "::ffff:8.8.8.8"]
  for (const a of allowed) t.notOk(Rules.isBlockedAddress(a), `${a} allowed`)
})

t.test("parseDestination", async (t) => {
  t.match(Rules.parseDestination("https://hooks.example.org/x?y=1"), { ok: true, host: "hooks.example.org", literal: false })
  t.match(Rules.parseDestination("http://[::1]:8080/"), { ok: true, host: "::1", literal: true })
  t.match(Rules.parseDestination("ftp://example.org"), { ok: false, reason: /http/ })
  t.match(Rules.parseDestination("not a url"), { ok: false })
  t.match(Rules.parseDestination("https://user:pw@example.org"), { ok: false, reason: /credentials/ })
})

const site: Rules.Site = { baseUrl: "https://convene.example", name: "convene", themeColor: "#123456" }
const message: EventMessage = {
  headline: "Ada started a discussion",
  title: "Budget [2027]",
  path: "/d/AbC123",
  body: "We need to **decide** on [the plan](https://x.example/p).",
  recipient_message: null
}
const bot = (over: Partial<Chatbot>): Chatbot => ({
  id: 1, group_id: 1, author_id: 1, name: "b", kind: "webhook", webhook_kind: "markdown", server: "https://hook.example/x",
  event_kinds: [], notification_only: false, created_at: "", updated_at: "", ...over
})

t.test("formats carry their principal fields", async (t) => {
  const md = Rules.formatWebhook("markdown", message, site, false)
  t.same(md, { text: "Ada started a discussion: [Budget \\[2027\\]](https://convene.example/d/AbC123)", icon_url: site.baseUrl, username: "convene" })
  t.notMatch(md.text as string, /\n/, "one line")
  const slack = Rules.formatWebhook("slack", message, site, false)
  t.same(Object.keys(slack), ["text"])
  t.match(slack.text, /^Ada started a discussion: <https:\/\/convene.example\/d\/AbC123\|Budget \[2027\]>\n\nWe need to \*decide\* on <https:\/\/x.example\/p\|the plan>\.$/)
  const discord = Rules.formatWebhook("discord", message, site, false)
  t.match(discord, { content: /\*\*decide\*\*/ })
  const teams = Rules.formatWebhook("microsoft", message, site, false)
  matchExact(t, teams, { "@type": "MessageCard", "@context": "http://schema.org/extensions", themeColor: "#123456", text: /decide/, sections: [] })
  t.match(Rules.formatWebhook("webex", message, site, false), { markdown: /decide/ })
  t.notMatch(Rules.formatWebhook("webex", message, site, true).markdown as string, /decide/, "notification_only: headline only")
  t.equal(Rules.formatWebhook("webex", { ...message, recipient_message: "Please read" }, site, true).markdown,
    "Ada started a discussion: [Budget \\[2027\\]](https://convene.example/d/AbC123)\n\nPlease read")
})

t.test("matrix: PUT to {server}/{txnId} with an m.room.message", async (t) => {
  const r = Rules.renderDelivery(bot({ kind: "matrix", webhook_kind: null, server: "https://matrix.example/_matrix/client/v3/rooms/!r:x/send/m.room.message?access_token=tok" }), message, site, "txn-1")
  t.equal(r.method, "PUT")
  t.equal(r.url, "https://matrix.example/_matrix/client/v3/rooms/!r:x/send/m.room.message/txn-1?access_token=tok")
  t.match(r.body, { msgtype: "m.text", format: "org.matrix.custom.html", body: /Budget/, formatted_body: /<a href="https:\/\/convene.example\/d\/AbC123">/ })
  const w = Rules.renderDelivery(bot({ webhook_kind: "slack" }), message, site, "t")
  t.same([w.method, w.url], ["POST", "https://hook.example/x"])
})

t.test("discord truncation: at most 1900 characters, no broken link or character", async (t) => {
  const emoji = "👍".repeat(2000)
  const cut = Rules.truncateMarkdown(emoji)
  t.ok(Array.from(cut).length <= 1900)
  t.ok(cut.endsWith("… (truncated)"))
  t.notOk(/\uD83D(?!\uDC4D)/.test(cut), "no lone surrogate")
  const withLink = "x".repeat(1880) + " [a link](https://example.org/" + "y".repeat(50) + ") tail"
  const c2 = Rules.truncateMarkdown(withLink)
  t.ok(Array.from(c2).length <= 1900)
  t.notMatch(c2, /\[a link/, "the cut link is dropped whole")
  t.equal(Rules.truncateMarkdown("short"), "short")
  const body = { ...message, body: "z".repeat(5000) }
  t.ok(Array.from(Rules.formatWebhook("discord", body, site, false).content as string).length <= 1900)
})

t.test("retry schedule", async (t) => {
  const delays = [10, 20]
  t.same(Rules.afterFailure(1, 1000, delays), { status: "failed", nextAttemptMs: 1010 })
  t.same(Rules.afterFailure(2, 1000, delays), { status: "failed", nextAttemptMs: 1020 })
  t.same(Rules.afterFailure(3, 1000, delays), { status: "dead" })
  t.same(Rules.DEFAULT_RETRY_DELAYS_MS, [30_000, 120_000, 600_000, 3_600_000, 21_600_000])
})

t.test("headlines", async (t) => {
  t.equal(Rules.headlineFor("poll_created", "Ada", "proposal"), "Ada started a proposal")
  t.equal(Rules.headlineFor("stance_updated", "Ada"), "Ada changed their vote")
})
