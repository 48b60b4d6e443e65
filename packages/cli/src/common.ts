/** What every command shares: the --db/--json options, argument parsers, and opening the database. */
import { type Convene, isNumericId, isPostgresUrl, notFound, openConvene, type NotFound, Rules, Store, type User, Users } from "@convene/core"
import { type Command, InvalidArgumentError } from "commander"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { io } from "./io.js"
import { CliError, makeOutput, type Output } from "./output.js"

export interface CommonOptions {
  readonly db?: string
  readonly json?: boolean
}

/**
 * Gives every leaf command --db and --json (decisions.md §4). They sit on the leaf commands, not on the
 * program, so that they may be written anywhere after the command: `convene users list --db x.db`.
 */
export const addCommonOptions = (cmd: Command): void => {
  if (cmd.commands.length > 0) return cmd.commands.forEach(addCommonOptions)
  cmd
    .option("--db <path|url>", "SQLite database file or postgres:// URL (default: $CONVENE_DB, else $DATABASE_URL, else ./convene.db)")
    .option("--json", "print machine-readable JSON on stdout")
}

export const dbPath = (opts: CommonOptions): string => opts.db ?? (io().env.CONVENE_DB || io().env.DATABASE_URL || "./convene.db")

/**
 * The database of a command that does not create one: a mistyped --db path would otherwise silently produce a
 * new, empty install (a server's database is checked when it is connected to).
 */
export const existingDatabase = (opts: CommonOptions): string => {
  const database = dbPath(opts)
  if (database !== ":memory:" && !isPostgresUrl(database) && !existsSync(database)) {
    throw new CliError(`no database at ${database} (run \`convene init\`, or pass --db or set CONVENE_DB)`)
  }
  return database
}

/**
 * Opens the database, runs `body`, closes it. A domain error becomes exit code 1 with its message.
 * Only `init` and `serve` create a database: elsewhere a mistyped --db path would otherwise
 * silently produce a new, empty install.
 */
export const withConvene = async (
  opts: CommonOptions,
  body: (convene: Convene, out: Output) => Promise<void>,
  { create = false } = {}
): Promise<void> => {
  const out = makeOutput(opts.json === true)
  let convene: Convene | undefined
  try {
    const filename = create ? dbPath(opts) : existingDatabase(opts)
    // members add --pending and the like invite people: their invitations last as the server's do
    convene = await openConvene({ database: filename, invitationTtlDays: Rules.invitationTtlDaysFrom(io().env.INVITATION_TTL_DAYS) })
    await body(convene, out)
  } catch (e) {
    out.fail(e)
  } finally {
    await convene?.close()
  }
}

// Parsers for commander: an InvalidArgumentError is bad usage (exit 2), reported by commander.

/** `ID…` of outbox items (mail messages, webhook deliveries), collected from a variadic argument. */
const parseIds = (what: string) => (value: string, previous: ReadonlyArray<number> = []): ReadonlyArray<number> => {
  if (!/^[0-9]{1,15}$/.test(value)) throw new InvalidArgumentError(`expected ${what} ids`)
  return [...previous, Number(value)]
}

/**
 * `mail retry` and `webhooks redeliver`: failed or dead outbox items by id, or every dead one with `--dead`,
 * made due now. `retry` returns how many were.
 */
export const registerRetry = (
  parent: Command,
  name: string,
  item: { readonly one: string; readonly many: string; readonly key: string },
  retry: (convene: Convene, ids: ReadonlyArray<number> | undefined) => Promise<number>
) =>
  parent.command(name)
    .description(`send failed or dead ${item.many} again now: by id, or every dead one with --dead`)
    .argument("[ids...]", `${item.one} ids`, parseIds(item.one))
    .option("--dead", `every dead ${item.one}`)
    .action((ids: ReadonlyArray<number> | undefined, opts: CommonOptions & { dead?: boolean }, cmd: Command) => {
      if ((ids === undefined || ids.length === 0) && opts.dead !== true) cmd.error(`error: name ${item.one} ids or pass --dead`, { exitCode: 2 })
      return withConvene(opts, async (c, out) => {
        const count = await retry(c, opts.dead === true ? undefined : ids)
        out.emit({ [item.key]: count }, `${count} ${count === 1 ? item.one : item.many} will be sent again`)
      })
    })

/** `ID`: a numeric id or `identity:TYPE:UID` (the UID may itself contain ':'). */
export const parseUserRef = (value: string): Users.UserRef => {
  if (isNumericId(value)) return { id: Number(value) }
  const m = /^identity:([^:]+):(.+)$/.exec(value)
  if (m !== null) return { identity_type: m[1]!, uid: m[2]! }
  throw new InvalidArgumentError("expected a numeric id or identity:TYPE:UID")
}

export type UserSpec = Users.UserRef | { readonly email: string }

/** `USER`: a numeric id, an e-mail address, or `identity:TYPE:UID`. */
export const parseUserSpec = (value: string): UserSpec => {
  if (value.includes("@") && !value.startsWith("identity:")) return { email: value }
  try {
    return parseUserRef(value)
  } catch {
    throw new InvalidArgumentError("expected a numeric id, an e-mail address or identity:TYPE:UID")
  }
}

/** Resolves a `USER` through the core (e-mail lookup as the core normalises addresses). */
export const findUserSpec = (spec: UserSpec): Effect.Effect<User, NotFound, Store> =>
  "email" in spec
    ? Effect.flatMap(Store, (store) =>
      Effect.flatMap(store.users.byEmail(Rules.normaliseEmail(spec.email)), (u) =>
        u === undefined ? Effect.fail(notFound(`User ${spec.email} not found`)) : Effect.succeed(u)))
    : Users.findUser(spec)

/** `TYPE:UID` of --identity. */
export const parseIdentity = (value: string): { identity_type: string; uid: string } => {
  const i = value.indexOf(":")
  if (i <= 0 || i === value.length - 1) throw new InvalidArgumentError("expected TYPE:UID")
  return { identity_type: value.slice(0, i), uid: value.slice(i + 1) }
}

/** Booleans as in query strings (decisions.md §1): true/false/1/0. */
export const parseBool = (value: string): boolean => {
  if (value === "true" || value === "1") return true
  if (value === "false" || value === "0") return false
  throw new InvalidArgumentError("expected true or false")
}

export const parsePort = (value: string): number => {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError("expected a port number 0-65535")
  return Number(value)
}

/** Collects a repeatable option (--setting a=1 --setting b=2). */
export const collect = (value: string, previous: ReadonlyArray<string> = []): ReadonlyArray<string> => [...previous, value]

/** Reads every page of a paged core listing, so the CLI lists everything. */
export const allPages = async <A>(fetch: (page: { limit: number; offset: number }) => Promise<ReadonlyArray<A>>): Promise<Array<A>> => {
  const limit = 1000
  const all: Array<A> = []
  for (let offset = 0; ; offset += limit) {
    const page = await fetch({ limit, offset })
    all.push(...page)
    if (page.length < limit) return all
  }
}
