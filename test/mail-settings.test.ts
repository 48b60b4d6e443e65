/**
 * Mail settings in the browser (decisions §11): the thread page's and the group page's Mute / Normal / Loud
 * buttons (the current one pressed), and /profile's catch-up e-mail and each group's volume; checked by axe.
 */
import type { Page } from "playwright-core"
import t, { type Test } from "tap"
import { axe, codeSignIn, startBrowsing, submitted } from "./browsing.js"

t.setTimeout(120_000)
const { s, smtp, browser } = await startBrowsing()
const signIn = codeSignIn(s, smtp)



const ada = await s.convene.users.create({ email: "ada@example.org", name: "Ada" })
const lea = await s.convene.users.create({ email: "lea@example.org", name: "Lea" })
const { group } = await s.convene.groups.create({ name: "Garden", owner: ada.user })
await s.convene.members.add({ group, user: lea.user })
const made = await s.as(ada.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: "Compost" } })
const discussion = (made.body as unknown as { discussions: Array<{ id: number; key: string; topic_id: number }> }).discussions[0]!

const pressed = async (page: Page, name: string) => page.getByRole("button", { name, exact: true }).getAttribute("aria-pressed")

t.test("the thread's and the group's volume, from their pages", async (t) => {
  const page = await signIn(await browser.newContext(), "lea@example.org")
  await page.goto(`${s.url}/d/${discussion.key}`)
  t.equal(await pressed(page, "Normal"), "true", "Normal until set")
  await axe(t, page, "a thread with its volume")
  await submitted(page, page.getByRole("button", { name: "Loud", exact: true }).click(), "Your e-mail setting is saved.")
  t.equal(await pressed(page, "Loud"), "true")
  t.equal(await pressed(page, "Normal"), "false")
  t.match(await page.getByRole("status").innerText().catch(() => page.locator("main").innerText()), /e-mail setting is saved/)
  t.same(await s.sql("SELECT volume FROM thread_volumes WHERE user_id = ?", lea.user.id), [{ volume: "loud" }])

  await page.goto(`${s.url}/g/${group.key}`)
  await submitted(page, page.getByRole("button", { name: "Mute", exact: true }).click(), "Your e-mail setting is saved.")
  t.equal(await pressed(page, "Mute"), "true")
  t.same(await s.sql("SELECT volume FROM group_volumes WHERE user_id = ? AND group_id = ?", lea.user.id, group.id), [{ volume: "mute" }])
  await page.goto(`${s.url}/d/${discussion.key}`)
  t.equal(await pressed(page, "Loud"), "true", "the thread's own setting wins over the group's")
})

t.test("/profile: the catch-up e-mail and each group's volume", async (t) => {
  const page = await signIn(await browser.newContext(), "lea@example.org")
  await page.goto(`${s.url}/profile`)
  await axe(t, page, "the profile with mail settings")
  t.equal(await page.getByLabel("Catch-up e-mail").inputValue(), "", "Off")
  await page.getByLabel("Catch-up e-mail").selectOption({ label: "Once a week" })
  await submitted(page, page.getByRole("button", { name: "Save" }).click(), "Your profile is saved.")
  t.equal(await page.getByLabel("Catch-up e-mail").inputValue(), "weekly")
  const [row] = await s.sql<{ catch_up: string; catch_up_sent_at: string | null }>("SELECT catch_up, catch_up_sent_at FROM users WHERE id = ?", lea.user.id)
  t.equal(row!.catch_up, "weekly")
  t.ok(row!.catch_up_sent_at, "the first one covers from now")

  await submitted(page, page.getByRole("button", { name: /^Normal · Garden/ }).click(), "Your e-mail setting is saved.")
  t.equal(await page.getByRole("button", { name: /^Normal · Garden/ }).getAttribute("aria-pressed"), "true")
  t.same(await s.sql("SELECT volume FROM group_volumes WHERE user_id = ? AND group_id = ?", lea.user.id, group.id), [{ volume: "normal" }])
})
