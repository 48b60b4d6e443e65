/**
 * Signing in with the organisation's identity provider (decisions §10), against a real OpenID provider
 * (oidc-provider on 127.0.0.1), driven in chromium: the first sign-in makes an account; a verified address
 * links to the account that has it and an unverified one does not; the subject, not the address, names the
 * account later; the groups claim makes and ends its own memberships only; an invitation is accepted through
 * the provider; a deactivated account, a cancelled sign-in and forged callbacks sign nobody in (a page each);
 * Loomio's OAuth variables and its FEATURES_DISABLE_EMAIL_LOGIN, CONVENE_SSO_ONLY, a provider that does not
 * answer, and doctor's report, through `convene serve` and `convene doctor`.
 */
import type { BrowserContext, Page } from "playwright-core"
import got from "got"
import t, { type Test } from "tap"
import { axe, freePort, startBrowsing } from "./browsing.js"
import { openSql, runBin, runHere, seedUser, spawnServe, tempDbFile } from "./helpers.js"
import { startProvider } from "./oidc-provider.js"

// several sign-ins through a provider's pages in a browser
t.setTimeout(240_000)

const [port, oauthPort, onlyPort] = await Promise.all([freePort(), freePort(), freePort()])
const base = `http://127.0.0.1:${port}`
const callback = (p: number) => `http://127.0.0.1:${p}/auth/oidc/callback`
const idp = await startProvider([callback(port), callback(oauthPort), callback(onlyPort)])
const sso = {
  mode: "oidc" as const,
  name: "Acme ID",
  clientId: idp.clientId,
  clientSecret: idp.clientSecret,
  scopes: "openid email profile groups",
  issuer: idp.issuer,
  attributes: { uid: "sub", name: "name", email: "email" },
  groupsClaim: "groups",
  only: false
}
const { s, smtp, browser } = await startBrowsing({ baseUrl: base, sso }, port)


/** At the provider's own sign-in page: any password. */
const atProvider = async (page: Page, login: string) => {
  await page.waitForURL((u) => u.origin === idp.issuer)
  await page.locator("input[name=login]").fill(login)
  await page.locator("input[name=password]").fill("any password")
  await page.locator("button[type=submit]").click()
}

/** Signs in through the provider from `origin`'s sign-in page; resolves on the page convene answers. */
const viaProvider = async (context: BrowserContext, login: string, origin = base, button = "Sign in with Acme ID"): Promise<Page> => {
  const page = await context.newPage()
  await page.goto(`${origin}/sign-in`)
  await page.getByRole("button", { name: button }).click()
  await atProvider(page, login)
  await page.waitForURL((u) => u.origin === origin)
  return page
}

const signedIn = (page: Page) => page.getByRole("button", { name: "Sign out" }).isVisible()
const accountOf = async (uid: string, type = "oidc") =>
  (await s.sql<{ id: number; email: string | null; name: string | null }>(
    "SELECT u.id, u.email, u.name FROM users u JOIN identities i ON i.user_id = u.id WHERE i.identity_type = ? AND i.uid = ?",
    type, uid
  ))
const userCount = async () => Number((await s.sql<{ n: number }>("SELECT count(*) AS n FROM users"))[0]!.n)

t.test("the first sign-in makes an account by the subject; later ones find it even when the address changed", async (t) => {
  idp.accounts.set("alice-sub", { email: "alice@example.org", email_verified: true, name: "Alice Liddell" })
  const context = await browser.newContext()
  const signInPage = await context.newPage()
  await signInPage.goto(`${base}/sign-in`)
  t.ok(await signInPage.getByRole("button", { name: "Sign in with Acme ID" }).isVisible(), "the button names the provider")
  t.ok(await signInPage.getByLabel("E-mail address").isVisible(), "e-mail sign-in is offered beside it")
  await axe(t, signInPage, "the sign-in page with the provider's button")
  await signInPage.setViewportSize({ width: 360, height: 740 })
  t.ok(await signInPage.evaluate(() => document.documentElement.scrollWidth) <= 360, "360 px: the sign-in page does not scroll sideways")
  const page = await viaProvider(context, "alice-sub")
  t.equal(new URL(page.url()).pathname, "/", "home")
  t.ok(await signedIn(page), "signed in")
  const [alice] = await accountOf("alice-sub")
  t.match(alice, { email: "alice@example.org", name: "Alice Liddell" }, "a new account, with the verified address and the name")

  const before = await userCount()
  idp.accounts.set("alice-sub", { email: "alice@new.example.org", email_verified: true, name: "Alice Liddell" })
  const again = await viaProvider(await browser.newContext(), "alice-sub")
  t.ok(await signedIn(again))
  t.equal(await userCount(), before, "no second account")
  t.equal((await accountOf("alice-sub"))[0]!.id, alice!.id, "the same account, by the subject")
})

t.test("a verified address links to the account that has it; an unverified one links nothing", async (t) => {
  const bea = await seedUser(s.convene, { name: "Bea", email: "bea@example.org" })
  idp.accounts.set("bea-sub", { email: "Bea@Example.org", email_verified: true, name: "Bea B." })
  t.ok(await signedIn(await viaProvider(await browser.newContext(), "bea-sub")))
  t.same((await accountOf("bea-sub")).map((u) => u.id), [bea.user.id], "Bea's own account, now with the identity")

  const carl = await seedUser(s.convene, { name: "Carl", email: "carl@example.org" })
  idp.accounts.set("carl-sub", { email: "carl@example.org", email_verified: false, name: "Not Carl" })
  const page = await viaProvider(await browser.newContext(), "carl-sub")
  t.ok(await signedIn(page))
  const [other] = await accountOf("carl-sub")
  t.not(other!.id, carl.user.id, "not Carl's account")
  t.equal(other!.email, null, "and the new account does not take the unverified address")
  t.same(await s.sql("SELECT id FROM identities WHERE user_id = ?", carl.user.id), [], "Carl has no identity")
})

t.test("the groups claim makes and ends its own memberships, never others", async (t) => {
  const owner = await seedUser(s.convene, { name: "Owner", email: "owner@example.org" })
  const board = (await s.convene.groups.create({ name: "Board", owner: owner.user, handle: "board" })).group
  const crew = (await s.convene.groups.create({ name: "Crew", owner: owner.user, handle: "crew" })).group
  const garden = (await s.convene.groups.create({ name: "Garden", owner: owner.user, handle: "garden" })).group
  const active = async (userId: number) =>
    (await s.sql<{ group_id: number }>("SELECT group_id FROM memberships WHERE user_id = ? AND revoked_at IS NULL AND accepted_at IS NOT NULL ORDER BY group_id", userId))
      .map((m) => m.group_id)

  idp.accounts.set("dan-sub", { email: "dan@example.org", email_verified: true, name: "Dan", groups: ["board", "crew", "no-such-group"] })
  await viaProvider(await browser.newContext(), "dan-sub")
  const dan = (await accountOf("dan-sub"))[0]!
  t.same(await active(dan.id), [board.id, crew.id], "a member of each claimed group that exists")
  const user = (await s.convene.users.show({ id: dan.id })).user
  await s.convene.members.add({ group: garden, user })

  idp.accounts.set("dan-sub", { email: "dan@example.org", email_verified: true, name: "Dan", groups: ["crew"] })
  const page = await viaProvider(await browser.newContext(), "dan-sub")
  t.same(await active(dan.id), [crew.id, garden.id], "Board, no longer claimed, is gone; Garden, made otherwise, stays")
  await page.goto(`${base}/g/${board.key}`)
  t.equal(await page.getByRole("heading", { name: "Board" }).count(), 0, "the Board's page is no longer Dan's to read")

  idp.accounts.set("dan-sub", { email: "dan@example.org", email_verified: true, name: "Dan", groups: [] })
  await viaProvider(await browser.newContext(), "dan-sub")
  t.same(await active(dan.id), [garden.id], "an empty claim ends every membership it made, and only those")
})

t.test("an invitation is accepted by signing in with the provider, whatever address the provider holds", async (t) => {
  const admin = await seedUser(s.convene, { name: "Ivy", email: "ivy@example.org" })
  const group = (await s.convene.groups.create({ name: "Choir", owner: admin.user, handle: "choir" })).group
  const before = smtp.received.length
  t.equal((await s.as(admin.apiKey).post("api/b2/memberships", { json: { group_id: group.id, emails: ["fay@example.org"] } })).statusCode, 200)
  const mail = await smtp.mailTo("fay@example.org", before)
  const link = new URL(/(http\S+\/invitations\/\S+)/.exec(mail.text ?? "")![1]!)

  idp.accounts.set("fay-sub", { email: "fay@corp.example.org", email_verified: true, name: "Fay" })
  const page = await (await browser.newContext()).newPage()
  await page.goto(`${base}${link.pathname}`)
  await axe(t, page, "an invitation with the provider's button")
  await page.getByRole("button", { name: "Sign in with Acme ID" }).click()
  await atProvider(page, "fay-sub")
  await page.waitForURL((u) => u.origin === base)
  t.ok(await signedIn(page), "signed in")
  const fay = (await accountOf("fay-sub"))[0]!
  t.equal(fay.email, "fay@corp.example.org")
  t.same(
    await s.sql("SELECT user_id FROM memberships WHERE group_id = ? AND revoked_at IS NULL AND accepted_at IS NOT NULL AND user_id <> ?", group.id, admin.user.id),
    [{ user_id: fay.id }],
    "the provider's account is the member the invitation made"
  )
  await page.goto(`${base}${link.pathname}`)
  t.match(await page.locator("main").innerText(), /already been used|no longer/i, "the invitation is used")
})

t.test("a thread guest's invitation, redeemed through the provider by another address, lets that account in", async (t) => {
  const admin = await seedUser(s.convene, { name: "Una", email: "una@example.org" })
  const { group } = await s.convene.groups.create({ name: "Porch", owner: admin.user })
  const before = smtp.received.length
  const made = await s.as(admin.apiKey).post("api/b2/discussions", { json: { group_id: group.id, title: "Guests welcome", recipient_emails: ["vic@example.org"] } })
  t.equal(made.statusCode, 200)
  const discussion = (made.body as unknown as { discussions: Array<{ key: string }> }).discussions[0]!
  const link = new URL(/(http\S+\/invitations\/\S+)/.exec((await smtp.mailTo("vic@example.org", before)).text ?? "")![1]!)
  idp.accounts.set("vic-sub", { email: "vic@corp.example.org", email_verified: true, name: "Vic" })
  const page = await (await browser.newContext()).newPage()
  await page.goto(`${base}${link.pathname}`)
  await page.getByRole("button", { name: "Sign in with Acme ID" }).click()
  await atProvider(page, "vic-sub")
  await page.waitForURL((u) => u.origin === base)
  t.equal(new URL(page.url()).pathname, `/d/${discussion.key}`, "lands on the thread")
  t.ok(await page.getByRole("heading", { name: "Guests welcome" }).isVisible(), "the provider's account reads it")
})

t.test("a deactivated account is refused: a page, no session", async (t) => {
  const gus = await seedUser(s.convene, { name: "Gus", email: "gus@example.org" })
  idp.accounts.set("gus-sub", { email: "gus@example.org", email_verified: true, name: "Gus" })
  t.ok(await signedIn(await viaProvider(await browser.newContext(), "gus-sub")))
  await s.convene.users.deactivate({ id: gus.user.id })
  const page = await viaProvider(await browser.newContext(), "gus-sub")
  t.match(await page.locator("main").innerText(), /deactivated/)
  t.notOk(await signedIn(page), "nobody signed in")
  await axe(t, page, "the refusal page")
})

t.test("a cancelled sign-in, a forged callback and a tampered flow sign nobody in", async (t) => {
  idp.accounts.set("hal-sub", { email: "hal@example.org", email_verified: true, name: "Hal" })
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(`${base}/sign-in`)
  await page.getByRole("button", { name: "Sign in with Acme ID" }).click()
  await page.waitForURL((u) => u.origin === idp.issuer)
  await page.getByRole("link", { name: "[ Cancel ]" }).click()
  await page.waitForURL((u) => u.origin === base)
  t.match(await page.locator("main").innerText(), /Acme ID did not sign you in \(access_denied|End-User aborted/, "the provider's refusal, said")
  t.notOk(await signedIn(page))

  const forged = await page.goto(`${base}/auth/oidc/callback?code=forged&state=forged`)
  t.equal(forged!.status(), 400, "a callback nobody started here")
  t.match(await page.locator("main").innerText(), /not started here/)

  // a real flow started, then a callback whose state is not the flow's
  await page.goto(`${base}/sign-in`)
  await page.getByRole("button", { name: "Sign in with Acme ID" }).click()
  await page.waitForURL((u) => u.origin === idp.issuer)
  const wrongState = await page.goto(`${base}/auth/oidc/callback?code=forged&state=not-the-state`)
  t.equal(wrongState!.status(), 400)
  t.notOk(await signedIn(page))

  // the flow's cookie altered
  await page.goto(`${base}/sign-in`)
  await page.getByRole("button", { name: "Sign in with Acme ID" }).click()
  await atProvider(page, "hal-sub")
  await page.waitForURL((u) => u.origin === base)
  t.ok(await signedIn(page), "an untouched flow signs in")
  const fresh = await browser.newContext()
  const p2 = await fresh.newPage()
  await p2.goto(`${base}/sign-in`)
  await p2.getByRole("button", { name: "Sign in with Acme ID" }).click()
  await p2.waitForURL((u) => u.origin === idp.issuer)
  const [flow] = (await fresh.cookies()).filter((c) => c.name === "convene_sso")
  t.ok(flow, "the flow is kept in a cookie")
  await fresh.addCookies([{ ...flow!, value: flow!.value.replace(/^./, (c) => (c === "e" ? "f" : "e")) }])
  await atProvider(p2, "hal-sub")
  await p2.waitForURL((u) => u.origin === base)
  t.equal(new URL(p2.url()).pathname, "/auth/oidc/callback")
  t.match(await p2.locator("main").innerText(), /not started here/, "an altered flow is no flow")
  t.notOk(await signedIn(p2), "nobody signed in")
})

t.test("German readers get the button and the failure pages in German", async (t) => {
  const page = await (await browser.newContext({ locale: "de-DE" })).newPage()
  await page.goto(`${base}/sign-in`)
  t.ok(await page.getByRole("button", { name: "Mit Acme ID anmelden" }).isVisible())
  await page.goto(`${base}/auth/oidc/callback?code=x&state=y`)
  t.match(await page.locator("h1").innerText(), /Anmeldung fehlgeschlagen/)
})

t.test("Loomio's OAuth variables and FEATURES_DISABLE_EMAIL_LOGIN, through convene serve", async (t) => {
  const { filename } = tempDbFile()
  const origin = `http://127.0.0.1:${oauthPort}`
  const served = await spawnServe(filename, {
    BASE_URL: origin,
    OAUTH_AUTH_URL: `${idp.issuer}/auth`,
    OAUTH_TOKEN_URL: `${idp.issuer}/token`,
    OAUTH_PROFILE_URL: `${idp.issuer}/me`,
    OAUTH_SCOPE: "openid email profile",
    OAUTH_APP_KEY: idp.clientId,
    OAUTH_APP_SECRET: idp.clientSecret,
    OAUTH_LOGIN_PROVIDER_NAME: "Acme OAuth",
    FEATURES_DISABLE_EMAIL_LOGIN: "1"
  }, oauthPort)
  t.teardown(() => served.stop())
  idp.accounts.set("olga-sub", { email: "olga@example.org", email_verified: true, name: "Olga" })
  const context = await browser.newContext()
  const signInPage = await context.newPage()
  await signInPage.goto(`${origin}/sign-in`)
  t.equal(await signInPage.getByLabel("E-mail address").count(), 0, "no e-mail sign-in")
  const page = await viaProvider(context, "olga-sub", origin, "Sign in with Acme OAuth")
  t.ok(await signedIn(page), "signed in through Loomio's OAuth configuration")
  const db = await openSql(filename)
  t.teardown(db.close)
  t.same(
    await db.sql("SELECT i.identity_type, i.uid, u.email FROM identities i JOIN users u ON u.id = i.user_id WHERE i.uid = ?", "olga-sub"),
    [{ identity_type: "oauth", uid: "olga-sub", email: "olga@example.org" }],
    "an oauth identity, as Loomio's, by the profile's sub"
  )
  // code sign-in, forged with a valid form token: refused with a page pointing to the provider
  const visitor = await (await browser.newContext()).newPage()
  await visitor.goto(`${origin}/sign-in`)
  const token = await visitor.locator("input[name=csrf]").first().inputValue()
  const refused = await visitor.request.post(`${origin}/sign-in`, { form: { csrf: token, email: "olga@example.org" } })
  t.equal(refused.status(), 403)
  t.match(await refused.text(), /Sign in with Acme OAuth/)
  t.same(await db.sql("SELECT id FROM mail_outbox WHERE kind = 'sign_in'"), [], "no code was sent")
})

t.test("CONVENE_SSO_ONLY; a provider that does not answer; doctor's report; a half-set configuration", async (t) => {
  const { filename } = tempDbFile()
  const origin = `http://127.0.0.1:${onlyPort}`
  const env = { BASE_URL: origin, OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: idp.clientId, OIDC_CLIENT_SECRET: idp.clientSecret, OIDC_PROVIDER_NAME: "Acme ID" }
  const served = await spawnServe(filename, { ...env, CONVENE_SSO_ONLY: "1", SMTP_URL: smtp.url }, onlyPort)
  t.teardown(() => served.stop())
  const page = await (await browser.newContext()).newPage()
  await page.goto(`${origin}/sign-in`)
  t.equal(await page.getByLabel("E-mail address").count(), 0, "no e-mail sign-in")
  t.ok(await page.getByRole("button", { name: "Sign in with Acme ID" }).isVisible())
  const link = await page.goto(`${origin}/sign-in/link/anything`)
  t.equal(link!.status(), 403, "a sign-in link answers a page pointing to the provider")
  t.ok(await page.getByRole("button", { name: "Sign in with Acme ID" }).isVisible())

  // an invitation to a new person: the provider's button, and no way in by the link alone
  t.equal((await runHere(["groups", "create", "--name", "Only", "--owner", "1", "--db", filename])).code, 0)
  const before = smtp.received.length
  const invited = await got.post(`${origin}/api/b2/memberships`, {
    headers: { authorization: `Bearer ${served.adminKey}` }, json: { group_id: 1, emails: ["ned@example.org"] }, throwHttpErrors: false
  })
  t.equal(invited.statusCode, 200)
  const invitation = new URL(/(http\S+\/invitations\/\S+)/.exec((await smtp.mailTo("ned@example.org", before)).text ?? "")![1]!).pathname
  await page.goto(`${origin}${invitation}`)
  t.ok(await page.getByRole("button", { name: "Sign in with Acme ID" }).isVisible(), "the invitation offers the provider")
  t.equal(await page.getByRole("button", { name: "Accept invitation" }).count(), 0, "and no acceptance by name")
  const csrf = await page.locator("input[name=csrf]").first().inputValue()
  const forged = await page.request.post(`${origin}${invitation}`, { form: { csrf, name: "Ned" } })
  t.equal(forged.status(), 403, "accepting by the link alone is refused")
  t.match(await forged.text(), /Sign in with Acme ID/)
  const db = await openSql(filename)
  t.teardown(db.close)
  t.same(await db.sql("SELECT accepted_at FROM memberships WHERE group_id = 1 AND user_id <> 1"), [{ accepted_at: null }], "still pending")

  const doctor = await runHere(["doctor", "--json", "--db", filename], env)
  const report = JSON.parse(doctor.stdout) as { checks: Array<{ check: string; status: string; message: string }> }
  t.match(report.checks.find((c) => c.check === "identity provider"), { status: "ok", message: new RegExp(`^${idp.issuer}, "Acme ID": authorize at ${idp.issuer}/auth`) })

  const away = { ...env, OIDC_ISSUER: "http://127.0.0.1:1" }
  const broken = await runHere(["doctor", "--json", "--db", filename], away)
  t.match(JSON.parse(broken.stdout).checks.find((c: { check: string }) => c.check === "identity provider"), { status: "fail", message: /cannot read the discovery document of http:\/\/127\.0\.0\.1:1/ })
  t.equal(broken.code, 1)

  const { filename: other } = tempDbFile()
  const unreachable = await spawnServe(other, { ...away, BASE_URL: "http://127.0.0.1:9" })
  t.teardown(() => unreachable.stop())
  const p = await (await browser.newContext()).newPage()
  await p.goto(`${unreachable.url}/sign-in`)
  await p.getByRole("button", { name: "Sign in with Acme ID" }).click()
  await p.waitForLoadState()
  t.match(await p.locator("main").innerText(), /Acme ID did not answer/, "a page, not a 500")

  const half = await runHere(["serve", "--port", "0", "--db", other], { OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: "x" })
  t.equal(half.code, 1)
  t.match(half.stderr, /OIDC_CLIENT_SECRET/, "names the missing variable")
  const insecure = await runHere(["serve", "--port", "0", "--db", other], { OIDC_ISSUER: "http://id.example.org", OIDC_CLIENT_ID: "x", OIDC_CLIENT_SECRET: "y" })
  t.match(insecure.stderr, /must be an https URL/)
})
