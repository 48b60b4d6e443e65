/**
 * `convene serve`: migrates the database, bootstraps an admin on an empty install, serves HTTP, and runs the
 * scheduler and the webhook delivery worker in the same process.
 */
import { type Convene, openConvene, Users } from "@convene/core"
import type { Command } from "commander"
import { type CommonOptions, dbPath, parsePort } from "../common.js"
import { userLine } from "../format.js"
import { io } from "../io.js"
import { CliError, errorMessage, EXIT_USAGE, makeOutput, type Output } from "../output.js"
import { withIdentities } from "./users.js"

/**
 * The first administrator of an empty install. Not "admin@localhost": the core's e-mail rule wants a dot
 * in the domain. Change it later with `convene users update 1 --email …`.
 */
export const BOOTSTRAP_ADMIN = { email: "admin@localhost.localdomain", name: "Admin", is_admin: true } as const

interface ServeOptions extends CommonOptions {
  port?: number
  host?: string
}

/** Creates the bootstrap admin when the database has no users; returns it with its key, else undefined. */
const ensureAdmin = async (c: Convene) => {
  const existing = await c.run(Users.listUsers({}, { limit: 1, offset: 0 }))
  return existing.total > 0 ? undefined : c.run(withIdentities(Users.createUser(BOOTSTRAP_ADMIN)))
}

export const registerServe = (program: Command) =>
  program.command("serve")
    .description("start the HTTP server (PORT default 3000, HOST default 127.0.0.1)")
    .option("--port <n>", "port to listen on; 0 picks a free one (default: $PORT, else 3000)", parsePort)
    .option("--host <host>", "address to listen on (default: $HOST, else 127.0.0.1)")
    .action(async (opts: ServeOptions, cmd: Command) => {
      let port = opts.port
      const envPort = io().env.PORT
      if (port === undefined) {
        try {
          port = envPort ? parsePort(envPort) : 3000
        } catch {
          cmd.error(`error: PORT=${envPort} is not a port number`, { exitCode: EXIT_USAGE })
        }
      }
      const host = opts.host ?? (io().env.HOST || "127.0.0.1")
      const out = makeOutput(opts.json === true)
      let convene: Convene | undefined
      try {
        // loaded here only: the HTTP stack roughly doubles start-up time of the other commands
        const { configWarnings, mailSettingsFromEnv, makeLog, makeMetrics, settingsFromEnv, startDeliveryWorker, startImapPoller, startInboundSmtp, startMailWorker, startScheduler, startServer, fileStorageFromEnv } =
          await import("@convene/http")
        // the environment is checked before anything is opened or created
        const settings = settingsFromEnv(io().env, { host, port })
        for (const warning of configWarnings(io().env, { host, port })) out.note(`convene: warning: ${warning}`)
        const mailTimeoutMs = mailTimeout(cmd)
        const schedulerMs = schedulerInterval(cmd)
        const mailSettings = mailSettingsFromEnv(io().env, settings.baseUrl, mailTimeoutMs)
        const allowPrivateWebhooks = settings.allowPrivateWebhooks ?? false
        convene = await openConvene({
          database: dbPath(opts),
          allowPrivateWebhooks,
          invitationTtlDays: settings.invitationTtlDays,
          onlyAdminsStartGroups: settings.onlyAdminsStartGroups ?? false
        })
        const admin = await ensureAdmin(convene)
        const telemetry = { log: makeLog(settings.logLevel), metrics: makeMetrics(convene.store) }
        const files = fileStorageFromEnv(io().env, dbPath(opts))
        const server = await startServer({ store: convene.store, settings, files, host, port, telemetry }).catch((e: unknown) => {
          // startServer's error is a pretty-printed Cause with a stack; its first line is the useful part
          throw new CliError(`cannot listen on ${host}:${port}: ${errorMessage(e).split("\n")[0]}`)
        })
        const worker = startDeliveryWorker({ store: convene.store, baseUrl: settings.baseUrl, allowPrivateWebhooks, telemetry })
        const scheduler = startScheduler(convene.store, schedulerMs, telemetry, files)
        const mailer = mailSettings === undefined
          ? undefined
          : startMailWorker({ store: convene.store, settings: mailSettings, baseUrl: settings.baseUrl, timeoutMs: mailTimeoutMs, telemetry })
        // replies by e-mail: the SMTP listener (an MX, or a relay, points at it)
        const inbound = settings.inbound?.smtp === undefined
          ? undefined
          : await startInboundSmtp({ store: convene.store, replyHost: settings.inbound.replyHost, ...settings.inbound.smtp, log: telemetry.log }).catch((e: unknown) => {
            throw new CliError(`cannot listen for mail on ${settings.inbound!.smtp!.host}:${settings.inbound!.smtp!.port}: ${errorMessage(e)}`)
          })
        // replies by e-mail: a mailbox polled over IMAP
        const imap = settings.inbound?.imap === undefined
          ? undefined
          : startImapPoller({ store: convene.store, replyHost: settings.inbound.replyHost, ...settings.inbound.imap, log: telemetry.log })
        if (mailer === undefined) {
          out.note("convene: no mail transport (SMTP_URL or SMTP_SERVER): invitations and notifications stay in the outbox (convene mail list)")
        }
        const db = convene
        // requests in flight finish first; pending deliveries stay in the outbox for the next start. Set before
        // saying "listening": a supervisor that reads that line may send a stop signal at once
        stopOnSignal(out, () => server.close().then(() => inbound?.close()).then(() => imap?.stop()).then(scheduler.stop).then(worker.stop).then(() => mailer?.stop()), db.close)
        out.emit(
          {
            url: server.url,
            port: server.port,
            ...(inbound === undefined ? {} : { inbound_smtp_port: inbound.port }),
            ...(admin === undefined ? {} : { admin: { ...Users.accountJson(admin.shown.user, admin.shown.identities), api_key: admin.apiKey } })
          },
          [
            ...(admin === undefined ? [] : [
              `Created the first administrator: ${userLine(admin.shown.user, admin.shown.identities)}`,
              `admin api key: ${admin.apiKey}`,
              "(shown only this once; store it now)"
            ]),
            `convene listening on ${server.url}`,
            ...(inbound === undefined ? [] : [`convene receiving replies by SMTP on ${settings.inbound!.smtp!.host}:${inbound.port}`])
          ],
          { oneLine: true }
        )
      } catch (e) {
        out.fail(e)
        await convene?.close()
      }
    })

/** A duration in milliseconds from the environment: its default when unset, bad usage when not a whole number ≥ min. */
const envMs = (cmd: Command, name: string, fallback: number, min: number): number => {
  const raw = io().env[name]
  if (raw === undefined || raw === "") return fallback
  const ms = Number(raw)
  if (!Number.isInteger(ms) || ms < min) cmd.error(`error: ${name}=${raw} is not a whole number of milliseconds`, { exitCode: EXIT_USAGE })
  return ms
}

/** CONVENE_MAIL_TIMEOUT_MS: the longest one SMTP attempt may take, default 30 seconds. */
const mailTimeout = (cmd: Command): number => envMs(cmd, "CONVENE_MAIL_TIMEOUT_MS", 30_000, 100)

/** CONVENE_SCHEDULER_INTERVAL_MS, default one minute. */
const schedulerInterval = (cmd: Command): number => envMs(cmd, "CONVENE_SCHEDULER_INTERVAL_MS", 60_000, 10)

/** In-flight requests finish, then the database closes; a second signal forces the exit. */
const stopOnSignal = (out: Output, closeServer: () => Promise<void>, closeDb: () => Promise<void>) => {
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1)
    stopping = true
    out.note(`convene: ${signal}, stopping`)
    closeServer()
      .then(closeDb)
      .then(() => process.exit(0), (e: unknown) => {
        out.fail(e)
        process.exit(1)
      })
  }
  process.on("SIGINT", stop)
  process.on("SIGTERM", stop)
}

