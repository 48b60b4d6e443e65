/** The catch-up e-mail's schedule (decisions §11): 06:00 in the person's zone, whatever daylight saving does. */
import t from "tap"
import { catchUpDue, lastCatchUpSlot } from "../src/rules/digest.js"
import { mentionedUsernames } from "../src/rules/mentions.js"
import { isAutomatic, replyTokenOf } from "../src/rules/inbound.js"
import { effectiveVolume, volumeAllows } from "../src/rules/volume.js"

const at = (iso: string) => Date.parse(iso)
const slot = (zone: string, now: string) => new Date(lastCatchUpSlot(zone, at(now))).toISOString()

t.test("the latest 06:00 in the zone", async (t) => {
  t.equal(slot("America/New_York", "2019-07-01T12:00:00Z"), "2019-07-01T10:00:00.000Z", "summer: 06:00 EDT")
  t.equal(slot("America/New_York", "2019-11-05T12:00:00Z"), "2019-11-05T11:00:00.000Z", "winter: 06:00 EST")
  t.equal(slot("America/New_York", "2019-11-05T10:59:00Z"), "2019-11-04T11:00:00.000Z", "05:59 there: yesterday's")
  t.equal(slot("Asia/Tokyo", "2019-07-01T00:00:00Z"), "2019-06-30T21:00:00.000Z", "east of Greenwich: 06:00 JST is 21:00 UTC the day before")
  t.equal(slot("UTC", "2019-07-01T06:00:00Z"), "2019-07-01T06:00:00.000Z")
})

t.test("due once per slot, every 1, 2 or 7 days", async (t) => {
  const zone = "Europe/Berlin"
  t.ok(catchUpDue("daily", zone, null, at("2019-07-02T05:00:00Z")), "never sent: due")
  t.ok(catchUpDue("daily", zone, "2019-07-01T04:01:00Z", at("2019-07-02T04:01:00Z")), "a day later, after 06:00 CEST")
  t.notOk(catchUpDue("daily", zone, "2019-07-02T04:01:00Z", at("2019-07-02T20:00:00Z")), "not twice a day")
  t.notOk(catchUpDue("every_other_day", zone, "2019-07-01T04:01:00Z", at("2019-07-02T04:30:00Z")))
  t.ok(catchUpDue("every_other_day", zone, "2019-07-01T04:01:00Z", at("2019-07-03T04:30:00Z")))
  t.notOk(catchUpDue("weekly", zone, "2019-07-01T04:01:00Z", at("2019-07-07T04:30:00Z")))
  t.ok(catchUpDue("weekly", zone, "2019-07-01T04:01:00Z", at("2019-07-08T04:30:00Z")))
})

t.test("mentions, automatic mail, reply addresses, volumes", async (t) => {
  t.same(mentionedUsernames("Hi @Ada and @bo.b. Not ada@example.org, not @ada again; (@cy)"), ["ada", "bo.b", "cy"])
  t.same(mentionedUsernames(null), [])
  const h = (o: Record<string, string>) => new Map(Object.entries(o))
  t.ok(isAutomatic(h({ "auto-submitted": "auto-replied" }), "a@x.org"))
  t.notOk(isAutomatic(h({ "auto-submitted": "no" }), "a@x.org"))
  t.ok(isAutomatic(h({ precedence: "bulk" }), "a@x.org"))
  t.ok(isAutomatic(h({ "content-type": "multipart/report; report-type=delivery-status" }), "a@x.org"))
  t.ok(isAutomatic(h({}), "MAILER-DAEMON@x.org"))
  t.notOk(isAutomatic(h({}), "bea@x.org"))
  t.equal(replyTokenOf("reply+abcdefghijklmnopqrstuvwxyz012345@Reply.Example.org", "reply.example.org"), "abcdefghijklmnopqrstuvwxyz012345")
  t.equal(replyTokenOf("reply+abcdefghijklmnopqrstuvwxyz012345@other.org", "reply.example.org"), undefined)
  t.equal(replyTokenOf("bea@reply.example.org", "reply.example.org"), undefined)
  t.equal(effectiveVolume("loud", "mute"), "loud")
  t.equal(effectiveVolume(undefined, "mute"), "mute")
  t.equal(effectiveVolume(undefined, undefined), "normal")
  const table: Array<[string, boolean, boolean, boolean]> = [
    // kind, mute, normal, loud
    ["new_discussion", false, true, true], ["poll_created", false, true, true], ["outcome_created", false, true, true],
    ["poll_closing_soon", false, true, true], ["comment_replied_to", false, true, true], ["user_mentioned", false, true, true],
    ["new_comment", false, false, true], ["stance_created", false, false, true]
  ]
  for (const [kind, mute, normal, loud] of table) {
    t.same([volumeAllows("mute", kind), volumeAllows("normal", kind), volumeAllows("loud", kind)], [mute, normal, loud], kind)
  }
})
