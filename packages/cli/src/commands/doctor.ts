/**
 * `convene doctor` (decisions §6): the database (opens, integrity, schema version), the configuration (the
 * warnings `serve` prints at start), the identity provider (its discovery document), the mail transport (connects and says what answered) and the outboxes
 * (dead items, a backlog that does not drain). Reads only: nothing is migrated or sent. Exit 1 when a check
 * warns or fails.
 */
import { type DatabaseReport, inspectAnyDatabase, type OutboxBacklog } from "@convene/core"
import type { SsoSettings } from "@convene/http"
import type { Command } from "commander"
import { type CommonOptions, dbPath } from "../common.js"
import { io } from "../io.js"
import { errorMessage, EXIT_DOMAIN, makeOutput } from "../output.js"

type Status = "ok" | "warn" | "fail"

interface Check {
  readonly check: "database" | "configuration" | "files" | "identity provider" | "inbound mail" | "mail" | "webhook outbox" | "mail outbox"
  readonly status: Status
  readonly message: string
}

/** A waiting item older than this means the outbox is not draining. */
const STALE_MS = 60 * 60 * 1000

const databaseCheck = (report: DatabaseReport): Check => {
  if (report.integrity !== "ok") return { check: "database", status: "fail", message: `${report.path} failed integrity_check: ${report.integrity}` }
  if (report.schema_version > report.known_version) {
    return {
      check: "database",
      status: "fail",
      message: `${report.path} has schema version ${report.schema_version}, written by a newer convene; this convene knows versions up to ${report.known_version}`
    }
  }
  const pending = report.schema_version < report.known_version
    ? `; the next \`convene serve\` migrates it to ${report.known_version}`
    : ""
  return { check: "database", status: "ok", message: `${report.path}: schema version ${report.schema_version}${pending}, ${report.store === "postgres" ? "reachable" : "integrity ok"}` }
}

const outboxCheck = (
  check: "webhook outbox" | "mail outbox",
  backlog: OutboxBacklog,
  now: number,
  retry: string,
  noTransport: boolean
): Check => {
  const problems: Array<string> = []
  if (backlog.dead > 0) problems.push(`${backlog.dead} given up on after the last retry (\`${retry}\` sends them again)`)
  const ageMs = backlog.oldest_waiting_at === null ? 0 : now - Date.parse(backlog.oldest_waiting_at)
  if (backlog.waiting > 0 && noTransport) problems.push(`${backlog.waiting} waiting and no mail transport configured (set SMTP_URL)`)
  else if (ageMs > STALE_MS) problems.push(`${backlog.waiting} waiting, the oldest since ${backlog.oldest_waiting_at} (is \`convene serve\` running?)`)
  return problems.length > 0
    ? { check, status: "warn", message: problems.join("; ") }
    : { check, status: "ok", message: `${backlog.waiting} waiting, none dead` }
}

const runChecks = async (path: string, env: Readonly<Record<string, string | undefined>>): Promise<ReadonlyArray<Check>> => {
  const { checkImapMailbox, checkMailTransport, configWarnings, fileStorageFromEnv, inboundFromEnv, inspectProvider, mailSettingsFromEnv, probeFileStorage, settingsFromEnv, ssoFromEnv } = await import("@convene/http")
  const checks: Array<Check> = []

  let report: DatabaseReport | undefined
  try {
    report = await inspectAnyDatabase(path)
    checks.push(databaseCheck(report))
  } catch (e) {
    checks.push({ check: "database", status: "fail", message: errorMessage(e) })
  }

  const listen = { host: env.HOST || "127.0.0.1", port: Number(env.PORT || "3000") }
  let baseUrl = `http://${listen.host}:${listen.port}`
  try {
    baseUrl = settingsFromEnv(env, listen).baseUrl
    const warnings = configWarnings(env, listen)
    if (warnings.length === 0) checks.push({ check: "configuration", status: "ok", message: `links point to ${baseUrl}` })
    for (const warning of warnings) checks.push({ check: "configuration", status: "warn", message: warning })
  } catch (e) {
    checks.push({ check: "configuration", status: "fail", message: errorMessage(e) })
  }

  // where files live: a probe object written, read back and deleted (decisions §14)
  try {
    const probe = await probeFileStorage(fileStorageFromEnv(env, path))
    checks.push({ check: "files", status: probe.ok ? "ok" : "fail", message: probe.message })
  } catch (e) {
    checks.push({ check: "files", status: "fail", message: errorMessage(e) })
  }

  // the identity provider: its discovery document read, or why not (decisions §10)
  let sso: SsoSettings | undefined
  try {
    sso = ssoFromEnv(env)
  } catch {
    // a half-set configuration: the configuration check above names it
  }
  if (sso !== undefined) {
    const found = await inspectProvider(sso)
    checks.push({ check: "identity provider", status: found.ok ? "ok" : "fail", message: found.message })
  }

  // replies from a mailbox: it logs in and says what waits (decisions §11)
  let inbound: ReturnType<typeof inboundFromEnv> | undefined
  try {
    inbound = inboundFromEnv(env)
  } catch {
    // a wrong configuration: the configuration check above names it
  }
  if (inbound?.imap !== undefined) {
    const found = await checkImapMailbox(inbound.imap.url)
    checks.push({ check: "inbound mail", status: found.ok ? "ok" : "fail", message: found.message })
  }

  let noTransport = false
  try {
    const mail = mailSettingsFromEnv(env, baseUrl)
    if (mail === undefined) {
      noTransport = true
      checks.push({ check: "mail", status: "ok", message: "no transport (SMTP_URL or SMTP_SERVER): mail stays in the outbox" })
    } else {
      const answer = await checkMailTransport(mail)
      checks.push(answer.ok
        ? { check: "mail", status: "ok", message: `${mail.target} answered: ${answer.greeting}` }
        : { check: "mail", status: "fail", message: answer.error })
    }
  } catch (e) {
    checks.push({ check: "mail", status: "fail", message: errorMessage(e) })
  }

  if (report?.outboxes !== undefined) {
    const now = Date.now()
    checks.push(outboxCheck("webhook outbox", report.outboxes.webhook, now, "convene webhooks redeliver --dead", false))
    checks.push(outboxCheck("mail outbox", report.outboxes.mail, now, "convene mail retry --dead", noTransport))
  }
  return checks
}

export const registerDoctor = (program: Command) =>
  program.command("doctor")
    .description("check the database, the configuration, the mail transport and the outboxes; exit 1 when something is wrong")
    .action(async (opts: CommonOptions) => {
      const out = makeOutput(opts.json === true)
      const checks = await runChecks(dbPath(opts), io().env)
      const ok = checks.every((c) => c.status === "ok")
      out.emit({ ok, checks }, checks.map((c) => `${c.status.padEnd(4)} ${c.check}: ${c.message}`))
      if (!ok) io().exitCode = EXIT_DOMAIN
    })
