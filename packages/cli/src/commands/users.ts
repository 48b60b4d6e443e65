/** `convene users …`: instance administration of accounts, through the same use cases as the b3 API. */
import { type User, Users } from "@convene/core"
import type { Command } from "commander"
import { Effect } from "effect"
import { allPages, type CommonOptions, parseBool, parseIdentity, parseUserRef, withConvene } from "../common.js"
import { userLine } from "../format.js"
import { EXIT_USAGE, type Output } from "../output.js"

type Shown = Users.UserWithIdentities

export const printUser = (out: Output, u: Shown) => out.emit(Users.accountJson(u.user, u.identities), userLine(u.user, u.identities))

/** The API key is printed only here (create, init, api-key, first serve): it is stored hashed, never again readable. */
export const printUserWithKey = (out: Output, u: Shown, apiKey: string) => {
  out.emit({ ...Users.accountJson(u.user, u.identities), api_key: apiKey }, [userLine(u.user, u.identities), `api key: ${apiKey}`])
  if (!out.json) out.note("Store the API key now: it is shown only once.")
}

/** A freshly keyed user (create, rotate) reloaded with its identities, so the output has the b3 shape. */
export const withIdentities = <E, R>(keyed: Effect.Effect<{ user: User; apiKey: string }, E, R>) =>
  Effect.flatMap(keyed, ({ user, apiKey }) => Effect.map(Users.showUser({ id: user.id }), (shown) => ({ shown, apiKey })))

interface CreateOptions extends CommonOptions {
  email: string
  name?: string
  username?: string
  admin?: boolean
  bot?: boolean
  country?: string
  identity?: { identity_type: string; uid: string }
}

interface UpdateOptions extends CommonOptions {
  name?: string
  username?: string
  email?: string
  admin?: boolean
}

/** An empty --name or --username clears the field. */
const orNull = (v: string | undefined) => (v === undefined ? undefined : v === "" ? null : v)

const ID_HELP = "numeric id or identity:TYPE:UID"

export const registerUsers = (program: Command) => {
  const users = program.command("users").description("manage user accounts (as the b3 Server API)")

  users.command("create")
    .description("create a user; prints it with its API key")
    .requiredOption("--email <email>", "e-mail address")
    .option("--name <name>", "display name")
    .option("--username <username>", "username")
    .option("--admin", "make the user an instance administrator")
    .option("--bot", "mark the user as a bot")
    .option("--country <country>", "country")
    .option("--identity <type:uid>", "an external identity, e.g. oauth:12345", parseIdentity)
    .action((opts: CreateOptions) =>
      withConvene(opts, async (c, out) => {
        const { shown, apiKey } = await c.run(withIdentities(Users.createUser({
          email: opts.email,
          name: opts.name,
          username: opts.username,
          country: opts.country,
          is_admin: opts.admin === true,
          bot: opts.bot === true,
          identity: opts.identity
        })))
        printUserWithKey(out, shown, apiKey)
      }))

  users.command("list")
    .description("list users by id")
    .option("--admin <bool>", "only administrators (true) or only non-administrators (false)", parseBool)
    .action((opts: CommonOptions & { admin?: boolean }) =>
      withConvene(opts, async (c, out) => {
        const filter = opts.admin === undefined ? {} : { is_admin: opts.admin }
        const list = await allPages((page) => c.run(Users.listUsers(filter, page)).then((p) => p.records))
        out.emit(list.map((u) => Users.accountJson(u.user, u.identities)), list.map((u) => userLine(u.user, u.identities)))
      }))

  users.command("show")
    .description("show a user")
    .argument("<id>", ID_HELP, parseUserRef)
    .action((ref: Users.UserRef, opts: CommonOptions) =>
      withConvene(opts, async (c, out) => printUser(out, await c.run(Users.showUser(ref)))))

  users.command("update")
    .description("change a user's name, username, e-mail or admin flag")
    .argument("<id>", ID_HELP, parseUserRef)
    .option("--name <name>", "display name ('' clears it)")
    .option("--username <username>", "username ('' clears it)")
    .option("--email <email>", "e-mail address")
    .option("--admin <bool>", "instance administrator: true or false", parseBool)
    .action((ref: Users.UserRef, opts: UpdateOptions, cmd: Command) => {
      if ([opts.name, opts.username, opts.email, opts.admin].every((v) => v === undefined)) {
        cmd.error("error: nothing to update: pass --name, --username, --email or --admin", { exitCode: EXIT_USAGE })
      }
      return withConvene(opts, async (c, out) => {
        const patch = { name: orNull(opts.name), username: orNull(opts.username), email: opts.email, is_admin: opts.admin }
        printUser(out, await c.run(Users.updateUser(ref, patch)))
      })
    })

  users.command("deactivate")
    .description("deactivate a user (revokes their memberships; their API key stops working)")
    .argument("<id>", ID_HELP, parseUserRef)
    .action((ref: Users.UserRef, opts: CommonOptions) =>
      withConvene(opts, async (c, out) => printUser(out, await c.run(Users.deactivateUser(ref)))))

  users.command("reactivate")
    .description("reactivate a user (restores the memberships the deactivation revoked)")
    .argument("<id>", ID_HELP, parseUserRef)
    .action((ref: Users.UserRef, opts: CommonOptions) =>
      withConvene(opts, async (c, out) => printUser(out, await c.run(Users.reactivateUser(ref)))))

  users.command("redact")
    .description("remove a user's identifying data, keeping their content")
    .argument("<id>", ID_HELP, parseUserRef)
    .action((ref: Users.UserRef, opts: CommonOptions) =>
      withConvene(opts, async (c, out) => {
        const user = await c.run(Users.redactUser(ref))
        printUser(out, { user, identities: [] }) // redaction removes identities
      }))

  users.command("delete")
    .description("permanently delete a user and everything they authored (needs --yes)")
    .argument("<id>", ID_HELP, parseUserRef)
    .option("--yes", "confirm the permanent deletion")
    .action((ref: Users.UserRef, opts: CommonOptions & { yes?: boolean }, cmd: Command) => {
      if (opts.yes !== true) {
        cmd.error("error: deleting a user is permanent and removes their content; pass --yes to confirm", { exitCode: EXIT_USAGE })
      }
      return withConvene(opts, async (c, out) => {
        // shown first so the output can say who was deleted, also when addressed by identity
        const gone = await c.run(Effect.flatMap(Users.showUser(ref), (u) => Effect.as(Users.deleteUser({ id: u.user.id }), u)))
        out.emit({ success: true, user: Users.accountJson(gone.user, gone.identities) }, `deleted ${userLine(gone.user, gone.identities)}`)
      })
    })

  users.command("api-key")
    .description("issue a new API key and print it (the old key stops working)")
    .argument("<id>", ID_HELP, parseUserRef)
    // Keys are stored hashed, so the current one can never be shown: rotating is the only action,
    // and --rotate merely spells it out (decisions.md §4 lists it as optional).
    .option("--rotate", "rotate the key (the default and only action)")
    .action((ref: Users.UserRef, opts: CommonOptions) =>
      withConvene(opts, async (c, out) => {
        const { shown, apiKey } = await c.run(withIdentities(Users.rotateApiKey(ref)))
        printUserWithKey(out, shown, apiKey)
      }))
}
