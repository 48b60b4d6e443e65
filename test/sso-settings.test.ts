/** The identity provider's variables (decisions §10): OIDC_*, Loomio's OAUTH_* when OIDC_ISSUER is unset, and what is refused. */
import t from "tap"
import { ssoFromEnv } from "@convene/http"

const oidc = { OIDC_ISSUER: "https://id.example.org/realms/staff", OIDC_CLIENT_ID: "convene", OIDC_CLIENT_SECRET: "s3cret" }
const oauth = {
  OAUTH_AUTH_URL: "https://login.example.org/oauth2/authorize",
  OAUTH_TOKEN_URL: "https://login.example.org/oauth2/token",
  OAUTH_PROFILE_URL: "https://login.example.org/oidc/userinfo",
  OAUTH_APP_KEY: "loomio",
  OAUTH_APP_SECRET: "s3cret"
}

t.test("no provider variables: no provider", async (t) => {
  t.equal(ssoFromEnv({}), undefined)
})

t.test("OpenID Connect: defaults, and each variable read", async (t) => {
  t.match(ssoFromEnv(oidc), { mode: "oidc", name: "id.example.org", clientId: "convene", clientSecret: "s3cret", scopes: "openid email profile", issuer: oidc.OIDC_ISSUER, only: false })
  t.equal(ssoFromEnv(oidc)!.groupsClaim, undefined)
  t.match(ssoFromEnv({ ...oidc, OIDC_SCOPES: "openid email", OIDC_PROVIDER_NAME: "Staff ID", OIDC_GROUPS_CLAIM: "groups", CONVENE_SSO_ONLY: "1" }), {
    scopes: "openid email", name: "Staff ID", groupsClaim: "groups", only: true
  })
  t.equal(ssoFromEnv({ ...oidc, FEATURES_DISABLE_EMAIL_LOGIN: "1" })!.only, true, "Loomio's switch turns e-mail sign-in off too")
  t.equal(ssoFromEnv({ ...oidc, ...oauth })!.mode, "oidc", "OIDC_ISSUER comes before the OAuth variables")
})

t.test("Loomio's OAuth variables when OIDC_ISSUER is unset", async (t) => {
  t.match(ssoFromEnv({ ...oauth, OAUTH_SCOPE: "openid email profile", OAUTH_ATTR_UID: "oid", OAUTH_ATTR_NAME: "displayName", OAUTH_ATTR_EMAIL: "mail", OAUTH_LOGIN_PROVIDER_NAME: "Entra" }), {
    mode: "oauth",
    name: "Entra",
    clientId: "loomio",
    endpoints: { authorization: oauth.OAUTH_AUTH_URL, token: oauth.OAUTH_TOKEN_URL, profile: oauth.OAUTH_PROFILE_URL },
    attributes: { uid: "oid", name: "displayName", email: "mail" }
  })
  t.match(ssoFromEnv(oauth), { name: "login.example.org", scopes: "openid email profile", attributes: { uid: "sub", name: "name", email: "email" } }, "Loomio's defaults")
})

t.test("a half-set or wrong configuration is refused, naming the variable", async (t) => {
  t.throws(() => ssoFromEnv({ OIDC_ISSUER: oidc.OIDC_ISSUER, OIDC_CLIENT_ID: "x" }), /half set: OIDC_ISSUER, OIDC_CLIENT_ID are set but OIDC_CLIENT_SECRET is not/)
  t.throws(() => ssoFromEnv({ OIDC_CLIENT_SECRET: "x" }), /OIDC_ISSUER, OIDC_CLIENT_ID are not/)
  t.throws(() => ssoFromEnv({ ...oauth, OAUTH_TOKEN_URL: "" }), /OAUTH_TOKEN_URL is not/)
  t.throws(() => ssoFromEnv({ ...oidc, OIDC_ISSUER: "id.example.org" }), /OIDC_ISSUER=id\.example\.org is not an absolute URL/)
  t.throws(() => ssoFromEnv({ ...oidc, OIDC_ISSUER: "http://id.example.org" }), /must be an https URL/)
  t.ok(ssoFromEnv({ ...oidc, OIDC_ISSUER: "http://127.0.0.1:8080" }), "http on this machine (development, tests)")
  t.throws(() => ssoFromEnv({ CONVENE_SSO_ONLY: "1" }), /CONVENE_SSO_ONLY=1 turns e-mail sign-in off, but no identity provider is configured/)
  t.throws(() => ssoFromEnv({ FEATURES_DISABLE_EMAIL_LOGIN: "1" }), /FEATURES_DISABLE_EMAIL_LOGIN=1/)
  t.throws(() => ssoFromEnv({ OIDC_GROUPS_CLAIM: "groups" }), /OIDC_GROUPS_CLAIM is set, but no identity provider/)
})
