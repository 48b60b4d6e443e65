/**
 * A real OpenID provider for the tests: panva's `oidc-provider` on 127.0.0.1, with its development sign-in
 * pages (any password), one client, and test accounts the test may change between sign-ins (an address, its
 * verification, the groups claim). Stops when the test file ends.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import Provider, { type Configuration } from "oidc-provider"
import t from "tap"

export interface TestAccount {
  email?: string
  email_verified?: boolean
  name?: string
  groups?: Array<string>
}

export interface TestProvider {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  /** By login (the subject): change them between sign-ins. */
  readonly accounts: Map<string, TestAccount>
  /** Stops answering (connections refused) until `resume`. */
  readonly pause: () => Promise<void>
  readonly resume: () => Promise<void>
}

/** `redirectUris`: where the provider may send the browser back (convene's `/auth/oidc/callback`). */
export const startProvider = async (redirectUris: ReadonlyArray<string>): Promise<TestProvider> => {
  const accounts = new Map<string, TestAccount>()
  let server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const issuer = `http://127.0.0.1:${port}`
  const clientId = "convene-test"
  const clientSecret = "a-client-secret-of-the-tests-0123456789"
  const configuration: Configuration = {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [...redirectUris], grant_types: ["authorization_code"], response_types: ["code"] }],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
    scopes: ["openid", "email", "profile", "groups"],
    cookies: { keys: ["cookie-key-of-the-tests-0123456789"] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub)
      return account === undefined ? undefined : { accountId: sub, claims: () => ({ sub, ...account }) }
    },
    // a first-party client: every scope granted without a consent page
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! })
      grant.addOIDCScope("openid email profile groups")
      await grant.save()
      return grant
    }
  }
  const provider = new Provider(issuer, configuration)
  // the provider's own errors are what the tests provoke; they are not the test's output
  provider.on("server_error", () => undefined)
  const handler = provider.callback()
  server.on("request", handler)
  const close = (s: Server) => new Promise<void>((resolve) => {
    s.closeAllConnections()
    s.close(() => resolve())
  })
  t.teardown(() => close(server))
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    pause: () => close(server),
    resume: async () => {
      server = createServer(handler)
      await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
    }
  }
}
