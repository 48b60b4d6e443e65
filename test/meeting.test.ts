/**
 * A meeting's outcome with a calendar invitation (decisions §15): sharing the outcome of a meeting poll picks the
 * chosen time, "Event title" and "Location"; the outcome mail reaches a real SMTP server and carries `meeting.ics`
 * (RFC 5545, parsed here with node-ical) to those who answered Yes or Maybe for that time, and only to them.
 */
import t from "tap"
import ical from "node-ical"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"
import { future, nextYear, seedUser } from "./helpers.js"
import { matchExact } from "./match.js"
import type { ParsedMail } from "mailparser"

t.setTimeout(120_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
const bo = await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const cy = await seedUser(s.convene, { name: "Cy", email: "cy@example.org" })
const di = await seedUser(s.convene, { name: "Di", email: "di@example.org" })
const { group } = await s.convene.groups.create({ name: "Board", owner: ada.user })
for (const u of [bo, cy, di]) await s.convene.members.add({ group, user: u.user })
const ok = async (p: Promise<any>) => {
  const r = await p
  if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${JSON.stringify(r.body)}`)
  return r.body as any
}
const first = `${nextYear()}-03-01T09:00:00.000Z`
const second = `${nextYear()}-03-02T14:30:00.000Z`

/** A closed meeting poll where Bo answered Yes, Cy Maybe and Di No for the first time (Di Yes for the second). */
const votedMeeting = async (title: string) => {
  const poll = (await ok(s.as(ada.apiKey).post("api/b2/polls", { json: { group_id: group.id, title, poll_type: "meeting", options: [first, second], closing_at: future(48), can_respond_maybe: true } }))).polls[0]
  const [a, b] = poll.poll_option_names as Array<string>
  await ok(s.as(bo.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { [a!]: 2, [b!]: 0 } } }))
  await ok(s.as(cy.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { [a!]: 1, [b!]: 2 } } }))
  await ok(s.as(di.apiKey).post("api/b2/stances", { json: { poll_id: poll.id, option_scores: { [a!]: 0, [b!]: 2 } } }))
  await ok(s.as(ada.apiKey).post(`api/b2/polls/${poll.id}/close`))
  return { poll, firstOption: poll.poll_option_ids[0] as number }
}
const outcomeMail = (email: string, before: number, title: string) => smtp.mailTo(email, before, (m) => (m.subject ?? "").includes(title))
const ics = (mail: ParsedMail) => mail.attachments.find((a) => a.filename === "meeting.ics")

t.test("the invitation goes to Yes and Maybe, with the chosen time in UTC", async (t) => {
  const { poll, firstOption } = await votedMeeting("When do we meet?")
  const before = smtp.received.length
  const shared = await ok(s.as(ada.apiKey).post("api/b2/outcomes", { json: { poll_id: poll.id, statement: "We meet on the first.", poll_option_id: firstOption, event_summary: "Board meeting", event_location: "The hall" } }))
  t.match(shared.outcomes[0], { poll_option_id: firstOption, event_summary: "Board meeting", event_location: "The hall" })

  for (const [who, gets] of [["bo@example.org", true], ["cy@example.org", true], ["di@example.org", false]] as const) {
    const mail = await outcomeMail(who, before, "When do we meet?")
    const file = ics(mail)
    t.equal(file !== undefined, gets, `${who}: ${gets ? "an invitation" : "the outcome without one"}`)
    if (file === undefined) continue
    t.match(file.contentType, /^(text\/calendar|application\/ics)/, "a calendar file")
    const events = Object.values(ical.sync.parseICS(file.content.toString("utf8"))).filter((c: any) => c.type === "VEVENT") as Array<any>
    t.equal(events.length, 1)
    const event = events[0]
    t.equal(new Date(event.start).toISOString(), first, "starts at the chosen time (UTC)")
    t.equal(new Date(event.end).getTime() - new Date(event.start).getTime(), 60 * 60_000, "an hour long")
    t.equal(event.summary, "Board meeting")
    t.equal(event.location, "The hall")
    const attendees = ([] as Array<any>).concat(event.attendee).map((a) => String(a.val ?? a).replace(/^mailto:/i, "").toLowerCase()).sort()
    matchExact(t, attendees, ["bo@example.org", "cy@example.org"], "Yes and Maybe only, not Di who answered No")
    t.match(String(event.organizer?.val ?? event.organizer), /ada@example\.org/i, "organised by the outcome's author")
  }
  t.same((await s.sql<any>("SELECT count(*) AS n FROM mail_outbox WHERE kind = 'outcome_created' AND calendar IS NOT NULL")), [{ n: 2 }], "kept in the outbox with its message")
})

t.test("no chosen time, or a poll that is not a meeting: no invitation", async (t) => {
  const { poll } = await votedMeeting("No time chosen")
  const before = smtp.received.length
  await ok(s.as(ada.apiKey).post("api/b2/outcomes", { json: { poll_id: poll.id, statement: "Not yet." } }))
  t.equal(ics(await outcomeMail("bo@example.org", before, "No time chosen")), undefined)
  const bad = await s.as(ada.apiKey).post("api/b2/outcomes", { json: { poll_id: poll.id, statement: "x", poll_option_id: 999999 } })
  t.equal(bad.statusCode, 422, "a time that is not the poll's")
})

t.test("on the page: the outcome form of a meeting picks the time, the title and the place", async (t) => {
  const { poll, firstOption } = await votedMeeting("Page meeting")
  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.goto(`${s.url}/p/${poll.key}`)
  await axe(t, page, "meeting outcome form")
  await page.getByLabel("Outcome", { exact: true }).fill("The first it is.")
  await page.getByLabel("Chosen time").selectOption(String(firstOption))
  await page.getByLabel("Event title").fill("Planning")
  await page.getByLabel("Location").fill("Room 2")
  const before = smtp.received.length
  await submitted(page, page.getByRole("button", { name: "Share outcome" }).click(), /outcome/i)
  const [row] = await s.sql<any>("SELECT poll_option_id, event_summary, event_location FROM outcomes WHERE poll_id = ?", poll.id)
  matchExact(t, row, { poll_option_id: firstOption, event_summary: "Planning", event_location: "Room 2" })
  t.ok(ics(await outcomeMail("cy@example.org", before, "Page meeting")), "Cy (Maybe) gets the invitation")
})
