/**
 * Shared set-up for end-to-end tests: a real server on port 0 over a fresh database. The database is a SQLite
 * file, or, when the runner started a PostgreSQL cluster for the suite's second pass (CONVENE_TEST_PG), a new
 * database on it: the same tests then run against the PostgreSQL store.
 */
import { type Convene, directoryStorage, type FileStorageService, openConvene, pgRowTypes, type User } from "@convene/core"
import { type DeliveryWorker, makeMetrics, silentLog, startDeliveryWorker, startServer, type HttpSettings, type WorkerOptions } from "@convene/http"
import { runCli } from "@convene/cli"
import got, { type Got } from "got"
import type { Test } from "tap"
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const B3_KEY = "b3-secret-key-that-is-long-enough"

/**
 * Dates in tests are relative to the clock: a literal future date fails the day the clock passes it (test/dates.test.ts
 * refuses one). An instant `hours` from now, as the API writes one.
 */
export const future = (hours = 48) => new Date(Date.now() + hours * 3600_000).toISOString()
/** Next year, for a date written as a person or a form writes one (`${nextYear()}-05-06T10:00`, without an offset). */
export const nextYear = () => new Date().getUTCFullYear() + 1

export interface TestServer {
  readonly convene: Convene
  readonly url: string
  readonly filename: string
  /** A client with no credentials; never throws on 4xx/5xx. */
  readonly api: Got
  /** A client that sends `Authorization: Bearer <key>`. */
  readonly as: (key: string) => Got
  readonly b3: Got
  /** Direct SQL on the database (`?` placeholders, on either store): asserting effects, or setting a row up as a test needs it. */
  readonly sql: <T = Record<string, unknown>>(query: string, ...params: Array<unknown>) => Promise<Array<T>>
  /** The webhook delivery worker, when the test asked for one. */
  readonly worker: DeliveryWorker | undefined
  /** where the server keeps files (a directory store of its own) */
  readonly filesDir: string
  readonly close: () => Promise<void>
}

/** The suite's PostgreSQL cluster (scripts/run-tests.mjs starts it for the second pass), or undefined. */
export const PG = process.env.CONVENE_TEST_PG || undefined
/** Which store this pass tests. */
export const STORE: "sqlite" | "postgres" = PG === undefined ? "sqlite" : "postgres"

/**
 * A fresh database: a file in a new directory, or a new PostgreSQL database made from the migrated template
 * (`filename` is then its URL, which --db, CONVENE_DB and openConvene take as they take a path).
 */
export const tempDbFile = () => {
  const dir = mkdtempSync(join(tmpdir(), "convene-test-"))
  if (PG === undefined) return { dir, filename: join(dir, "convene.db") }
  const name = `t_${randomBytes(6).toString("hex")}`
  execFileSync("psql", [`${PG}/postgres`, "-qXc", `CREATE DATABASE ${name} TEMPLATE convene_template`], { stdio: ["ignore", "ignore", "inherit"] })
  return { dir, filename: `${PG}/${name}` }
}

/** What a command on a database that is not there says: a file that does not exist, or a server's database that does not. */
export const NO_DATABASE = STORE === "sqlite" ? /^error: no database at / : /^error: cannot connect to the database at 127\.0\.0\.1:\d+\/\w+/

/**
 * Whether a database was left as tempDbFile made it: no file at all, or (PostgreSQL, where tempDbFile made the
 * database from the migrated, empty template) no user in it.
 */
export const untouched = async (filename: string) => {
  if (PG === undefined) return !existsSync(filename)
  const db = await openSql(filename)
  try {
    return (await db.sql<{ n: number }>("SELECT count(*) AS n FROM users"))[0]!.n === 0
  } catch {
    // no such database
    return true
  } finally {
    await db.close()
  }
}

/** Removes a test database made by tempDbFile (the cluster holds many tests' databases at once). */
export const dropDatabase = (url: string) =>
  new Promise<void>((resolve) =>
    execFile("psql", [`${PG}/postgres`, "-qXc", `DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`], () => resolve()))

/** `?` placeholders as PostgreSQL's `$n` (the tests' SQL has no `?` inside quotes). */
const numbered = (query: string) => {
  let n = 0
  return query.replace(/\?/g, () => `$${++n}`)
}

/** Direct SQL on a test database, on either store. */
export const openSql = async (filename: string) => {
  if (PG === undefined) {
    const { default: Database } = await import("better-sqlite3")
    const db = new Database(filename)
    return {
      sql: <T>(query: string, ...params: Array<unknown>) => {
        const statement = db.prepare(query)
        return Promise.resolve((statement.reader ? statement.all(...params) : (statement.run(...params), [])) as Array<T>)
      },
      close: async () => void db.close()
    }
  }
  // rows as convene reads them (counts as numbers, flags as 0/1, instants as ISO text), as SQLite answers them
  const pool = new pg.Pool({ connectionString: filename, max: 2, types: pgRowTypes })
  // an idle connection the server drops (the pool ending it under load, say) is replaced, not a crash of the test
  pool.on("error", () => undefined)
  return {
    sql: async <T>(query: string, ...params: Array<unknown>) => (await pool.query(numbered(query), params)).rows as Array<T>,
    close: () => pool.end()
  }
}

/**
 * Holds back every comment's write from another process until `release`: SQLite's write lock (BEGIN IMMEDIATE on a
 * connection of its own; readers go on), or, on PostgreSQL, the comments table locked against writers (plain reads
 * go on). A test stops a server at a point it chose this way, not by racing it.
 */
export const holdCommentWrites = async (filename: string): Promise<{ release: () => Promise<void> }> => {
  if (PG === undefined) {
    const { default: Database } = await import("better-sqlite3")
    const db = new Database(filename)
    db.exec("BEGIN IMMEDIATE")
    return { release: async () => void (db.open && (db.exec("ROLLBACK"), db.close())) }
  }
  const client = new pg.Client({ connectionString: filename })
  await client.connect()
  await client.query("BEGIN")
  await client.query("LOCK TABLE comments IN EXCLUSIVE MODE")
  let held = true
  return { release: async () => void (held && (held = false, await client.query("ROLLBACK"), await client.end())) }
}

export const startTestServer = async (
  settings: Partial<HttpSettings> = {},
  options: { worker?: Partial<WorkerOptions>; filename?: string; metrics?: boolean; port?: number; files?: FileStorageService } = {}
): Promise<TestServer> => {
  const { dir, filename } = options.filename === undefined ? tempDbFile() : { dir: undefined, filename: options.filename }
  const convene = await openConvene({ database: filename, allowPrivateWebhooks: settings.allowPrivateWebhooks ?? false })
  const filesDir = mkdtempSync(join(tmpdir(), "convene-files-"))
  const server = await startServer({
    store: convene.store,
    files: options.files ?? directoryStorage(filesDir),
    port: options.port ?? 0,
    host: "127.0.0.1",
    ...(options.metrics === true ? { telemetry: { log: silentLog(), metrics: makeMetrics(convene.store) } } : {}),
    settings: { b3ApiKey: B3_KEY, baseUrl: "http://convene.test", maxBodyBytes: 64 * 1024, version: "test", ...settings }
  })
  const api = got.extend({ prefixUrl: server.url, throwHttpErrors: false, responseType: "json", retry: { limit: 0 } })
  const worker = options.worker === undefined ? undefined : startDeliveryWorker({
    store: convene.store,
    baseUrl: "http://convene.test",
    allowPrivateWebhooks: settings.allowPrivateWebhooks ?? false,
    pollMs: 50,
    ...options.worker
  })
  const db = await openSql(filename)
  return {
    convene,
    url: server.url,
    filename,
    api,
    as: (key) => api.extend({ headers: { authorization: `Bearer ${key}` } }),
    b3: api.extend({ headers: { authorization: `Bearer ${B3_KEY}` } }),
    sql: db.sql,
    worker,
    filesDir,
    close: async () => {
      await db.close()
      await worker?.stop()
      await server.close()
      await convene.close()
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
      rmSync(filesDir, { recursive: true, force: true })
      if (dir !== undefined && PG !== undefined) await dropDatabase(filename)
    }
  }
}

let counter = 0
/** A user with a unique e-mail; returns the user and its plaintext API key. */
export const seedUser = (convene: Convene, fields: { name?: string; email?: string; is_admin?: boolean } = {}) =>
  convene.users.create({ email: fields.email ?? `user${++counter}-${Date.now()}@example.org`, name: fields.name ?? `User ${counter}`, ...(fields.is_admin === undefined ? {} : { is_admin: fields.is_admin }) })

export type Seeded = { user: User; apiKey: string }

/** The real binary (tests run from the repository root). */
export const BIN = join(process.cwd(), "packages/cli/bin/convene.js")

/**
 * A child's environment: tap's process-tracking hooks (NODE_OPTIONS) are left out, as a user's shell would
 * not have them; CONVENE_DB is cleared so that only what a test passes counts.
 */
export const childEnv = (extra: Record<string, string> = {}) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_OPTIONS" && !k.startsWith("_TAPJS_"))),
  CONVENE_DB: "",
  ...extra
})

export interface BinResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** One command line of the real binary. */
export const runBin = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<BinResult> =>
  new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: childEnv(env), maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : -1
      resolve({ code, stdout, stderr })
    })
  })

/** Waits until `check` holds (looked at every 20 ms), failing with `what` after `ms`: for work another process or a worker finishes. */
export const until = async (check: () => boolean | Promise<boolean>, what = "the condition", ms = 10_000) => {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * Until every webhook delivery (of the chatbots named, else all) is done or dead: the worker records a delivery only
 * once its receiver has answered, after the receiver has seen it.
 */
export const deliveriesSettled = (sql: TestServer["sql"], chatbots?: ReadonlyArray<string>) =>
  until(async () => {
    const named = chatbots === undefined ? "" : ` WHERE c.name IN (${chatbots.map(() => "?").join(", ")})`
    const rows = await sql<{ status: string }>(`SELECT d.status FROM webhook_deliveries d JOIN chatbots c ON c.id = d.chatbot_id${named}`, ...(chatbots ?? []))
    return rows.every((d) => d.status === "done" || d.status === "dead")
  }, "the webhook deliveries to be recorded")

/**
 * The same command line run in this process (`runCli` with buffers): what the binary does but its start-up, which
 * costs a second of a busy machine's CPU each time. The environment is the binary's as `runBin` gives it.
 */
export const runHere = async (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<BinResult> => {
  let stdout = ""
  let stderr = ""
  const code = await runCli(args, { stdout: (x) => void (stdout += x), stderr: (x) => void (stderr += x), env: childEnv(env), exitCode: 0 })
  return { code, stdout, stderr }
}

export interface ServeProcess {
  readonly url: string
  /** the bootstrap admin's key, when the database was empty */
  readonly adminKey: string | undefined
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** stdout's JSON lines after the start-up record (the log) */
  readonly logLines: () => Array<Record<string, unknown>>
  /** sends the signal and resolves with the exit code */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

/** `convene serve --json --port 0` as a child process, once it listens. */
/** `port`: a port chosen first (a server whose BASE_URL names it); else any free one. */
export const spawnServe = (filename: string, env: Record<string, string> = {}, port = 0): Promise<ServeProcess> => {
  const child = spawn(process.execPath, [BIN, "serve", "--port", String(port), "--db", filename, "--json"], { env: childEnv(env) })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (d) => (stdout += d))
  child.stderr.on("data", (d) => (stderr += d))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start; stdout: ${stdout}; stderr: ${stderr}`)), 30_000)
    const onData = () => {
      const newline = stdout.indexOf("\n")
      if (newline === -1) return
      clearTimeout(timer)
      child.stdout.off("data", onData)
      const started = JSON.parse(stdout.slice(0, newline)) as { url: string; admin?: { api_key: string } }
      resolve({
        url: started.url,
        adminKey: started.admin?.api_key,
        child,
        stdout: () => stdout,
        stderr: () => stderr,
        logLines: () => stdout.split("\n").slice(1).filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>),
        stop: (signal = "SIGTERM") => {
          if (child.exitCode === null) child.kill(signal)
          return exited
        }
      })
    }
    child.stdout.on("data", onData)
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
  })
}

/**
 * A person with a browser: cookies kept between requests, forms posted as a browser posts them, no redirects
 * followed. `from` is the address the connection comes from (any of 127.0.0.0/8 reaches a server on
 * 127.0.0.1): limits counted per client address see each such person as a client of their own.
 */
export const browserSession = (url: string, { from, headers: extra = {} }: { from?: string; headers?: Record<string, string> } = {}) => {
  const cookies = new Map<string, string>()
  const send = async (path: string, init: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: string } = {}) => {
    const res = await got(`${url}${path}`, {
      method: init.method ?? "GET",
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "), ...extra, ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
      ...(from === undefined ? {} : { localAddress: from }),
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      responseType: "text"
    })
    const headers = new Headers()
    for (const [name, value] of Object.entries(res.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v)
    }
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(";")
      const i = pair!.indexOf("=")
      const name = pair!.slice(0, i)
      const value = pair!.slice(i + 1)
      if (value === "" || /max-age=0\b/i.test(line)) cookies.delete(name)
      else cookies.set(name, value)
    }
    return { status: res.statusCode, headers, html: res.body }
  }
  return {
    cookies,
    get: (path: string) => send(path),
    post: (path: string, fields: Record<string, string>, { csrf = true } = {}) =>
      send(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ ...(csrf ? { csrf: cookies.get("convene_csrf") ?? "" } : {}), ...fields }).toString()
      })
  }
}

/** A client's POST of JSON that must succeed: its body, or the test fails naming the path, status and answer. */
export const poster = (client: Got) => async (path: string, json: object): Promise<any> => {
  const r = await client.post(path, { json })
  if (r.statusCode !== 200) throw new Error(`${path}: ${r.statusCode} ${JSON.stringify(r.body)}`)
  return r.body
}
