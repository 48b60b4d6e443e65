/**
 * Keeping up in the browser (decisions §13): searching from the header with the API's visibility, results grouped by
 * type with their highlight, filtered by group and type; reacting under comments, polls, votes and outcomes.
 */
import t from "tap"
import { axe, codeSignIn, startBrowsing } from "./browsing.js"
import { future, seedUser } from "./helpers.js"

t.setTimeout(120_000)

const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)
const ada = await seedUser(s.convene, { name: "Ada", email: "ada@example.org" })
await seedUser(s.convene, { name: "Bo", email: "bo@example.org" })
const A = s.as(ada.apiKey)
const post = async (path: string, json: object) => {
  const r = await A.post(path, { json })
  if (r.statusCode !== 200) throw new Error(`${path}: ${r.statusCode} ${JSON.stringify(r.body)}`)
  return r.body as any
}

t.test("search: from the header, what the reader may see, grouped by type, filtered by group and type", async (t) => {
  const secret = (await post("api/b2/groups", { name: "Compost" })).groups[0]
  const open = (await post("api/b2/groups", { name: "Allotment" })).groups[0]
  await A.patch(`api/b2/groups/${open.id}`, { json: { group_privacy: "open" } })
  const hidden = (await post("api/b2/discussions", { group_id: secret.id, title: "Worm bins", description: "Which worms eat most?" })).discussions[0]
  await post("api/b2/comments", { discussion_id: hidden.id, body: "Red worms, I think." })
  const shown = (await post("api/b2/discussions", { group_id: open.id, title: "A worm farm for all", description: "Open to everyone.", private: false })).discussions[0]
  await post("api/b2/polls", { group_id: open.id, title: "Buy worms?", poll_type: "proposal", closing_at: future() })

  const page = await signIn(await browser.newContext(), "ada@example.org")
  await page.getByRole("link", { name: "Search", exact: true }).click()
  await page.waitForURL(`${s.url}/search`)
  await axe(t, page, "search")
  await page.getByLabel("Search", { exact: true }).fill("worms")
  await page.getByRole("button", { name: "Search" }).click()
  await page.waitForURL(/q=worms/)
  await axe(t, page, "search results")
  t.same(await page.locator("main section h2").allTextContents(), ["Discussions", "Comments", "Polls"], "grouped by type")
  t.match(await page.locator("main").innerHTML(), /<b>worms?<\/b>/i, "the matched words highlighted")
  t.ok(await page.getByRole("link", { name: "Worm bins" }).count() >= 1, "Ada sees her secret group's thread")
  // filters
  await page.getByLabel("Type").selectOption("Comment")
  await page.getByRole("button", { name: "Search" }).click()
  await page.waitForURL(/type=Comment/)
  t.same(await page.locator("main section h2").allTextContents(), ["Comments"])
  t.equal(await page.locator("main ol.results a").first().getAttribute("href"), `/d/${hidden.key}#comment-${(await s.sql<{ id: number }>(`SELECT id FROM comments WHERE discussion_id = ?`, hidden.id))[0]!.id}`)
  await page.goto(`${s.url}/search?q=worm&group=${open.key}`)
  t.notOk(await page.getByRole("link", { name: "Worm bins" }).count(), "only the group chosen")
  t.ok(await page.getByRole("link", { name: "A worm farm for all" }).count() >= 1)

  // Bo is in neither group: only what is public
  const bo = await signIn(await browser.newContext(), "bo@example.org")
  await bo.goto(`${s.url}/search?q=worms`)
  t.equal(await bo.getByRole("link", { name: "Worm bins" }).count(), 0, "never a secret group's thread")
  t.ok(await bo.getByRole("link", { name: "A worm farm for all" }).count() >= 1, "a public one")
  t.notOk((await bo.locator("main").textContent())!.includes("Red worms"), "nor its comment")
  // a visitor too
  const visitor = await (await browser.newContext()).newPage()
  await visitor.goto(`${s.url}/search?q=worm`)
  t.equal(await visitor.getByRole("link", { name: "Worm bins" }).count(), 0)
  t.ok(await visitor.getByRole("link", { name: "A worm farm for all" }).count() >= 1)
  await visitor.setViewportSize({ width: 360, height: 740 })
  t.ok(await visitor.evaluate(() => document.documentElement.scrollWidth) <= 360, "360 px")
  // a query of punctuation only, and a type that is none: a page, not an error
  t.equal((await visitor.goto(`${s.url}/search?q=${encodeURIComponent("%%% ***")}&type=Nope`))!.status(), 200)
  void shown
  const de = await (await browser.newContext({ locale: "de" })).newPage()
  await de.goto(`${s.url}/search?q=worm`)
  t.equal(await de.locator("h1").textContent(), "Suche")
  t.equal(await de.getByRole("link", { name: "Suche", exact: true }).count(), 1, "the header's link, in German")
})
