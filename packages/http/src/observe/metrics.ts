/**
 * Prometheus metrics (decisions §6) with prom-client: requests by route and status, a latency histogram,
 * each outbox's depth and oldest age (read from the database when scraped), deliveries by result and
 * scheduler runs, beside the process's own (memory, event-loop lag).
 */
import { Deliveries, Mail, type OutboxBacklog, type Scheduler, Store, type StoreService } from "@convene/core"
import { Effect } from "effect"
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client"

export type Outbox = "webhook" | "mail"

export interface Metrics {
  readonly registry: Registry
  /** A request has arrived (counted in flight until `request` records its answer). */
  readonly arrived: (method: string, route: string) => void
  readonly request: (method: string, route: string, status: number, seconds: number) => void
  readonly delivered: (outbox: Outbox, result: string) => void
  readonly schedulerRan: (report: Scheduler.SchedulerReport) => void
}

/** How long one scrape's reading of the outboxes is reused by the gauges that share it. */
const BACKLOG_FRESH_MS = 1000

export const makeMetrics = (store: StoreService): Metrics => {
  const registry = new Registry()
  const registers = [registry]
  collectDefaultMetrics({ register: registry, prefix: "convene_" })

  const requests = new Counter({
    name: "convene_http_requests_total", help: "HTTP requests answered, by method, route and status", labelNames: ["method", "route", "status"], registers
  })
  const duration = new Histogram({
    name: "convene_http_request_duration_seconds",
    help: "Time from a request's arrival to its last byte sent, by method and route",
    labelNames: ["method", "route"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers
  })
  const inFlight = new Gauge({
    name: "convene_http_requests_in_flight", help: "Requests arrived and not yet answered, by method and route", labelNames: ["method", "route"], registers
  })
  const deliveries = new Counter({
    name: "convene_outbox_deliveries_total", help: "Delivery attempts recorded, by outbox and resulting state", labelNames: ["outbox", "result"], registers
  })
  const schedulerRuns = new Counter({ name: "convene_scheduler_runs_total", help: "Scheduler ticks completed", registers })
  const schedulerJobs = new Counter({
    name: "convene_scheduler_jobs_total", help: "Scheduled work done: polls closed, reminders sent, outcome reviews raised", labelNames: ["job"], registers
  })

  let reading: { at: number; backlogs: Promise<Record<Outbox, OutboxBacklog>> } | undefined
  const backlogs = () => {
    const now = Date.now()
    if (reading === undefined || now - reading.at > BACKLOG_FRESH_MS) {
      const read = Effect.all({ webhook: Deliveries.deliveryBacklog, mail: Mail.mailBacklog }).pipe(Effect.provideService(Store, store))
      reading = { at: now, backlogs: Effect.runPromise(read) }
    }
    return reading.backlogs
  }
  const outboxGauge = (name: string, help: string, value: (b: OutboxBacklog, now: number) => number) =>
    new Gauge({
      name, help, labelNames: ["outbox"], registers,
      async collect() {
        const all = await backlogs()
        for (const outbox of ["webhook", "mail"] as const) this.set({ outbox }, value(all[outbox], Date.now()))
      }
    })
  outboxGauge("convene_outbox_waiting", "Items waiting to be sent (pending or to be retried)", (b) => b.waiting)
  outboxGauge("convene_outbox_dead", "Items given up on after the last retry", (b) => b.dead)
  outboxGauge("convene_outbox_oldest_waiting_seconds", "Age of the oldest waiting item (0 when none waits)", (b, now) =>
    b.oldest_waiting_at === null ? 0 : Math.max(0, (now - Date.parse(b.oldest_waiting_at)) / 1000))

  return {
    registry,
    arrived: (method, route) => inFlight.inc({ method, route }),
    request: (method, route, status, seconds) => {
      inFlight.dec({ method, route })
      requests.inc({ method, route, status })
      duration.observe({ method, route }, seconds)
    },
    delivered: (outbox, result) => deliveries.inc({ outbox, result }),
    schedulerRan: (report) => {
      schedulerRuns.inc()
      schedulerJobs.inc({ job: "poll_expired" }, report.expired)
      schedulerJobs.inc({ job: "poll_closing_soon" }, report.reminded)
      schedulerJobs.inc({ job: "outcome_review_due" }, report.reviews)
      schedulerJobs.inc({ job: "group_purged" }, report.purged)
    }
  }
}
