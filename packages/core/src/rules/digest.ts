/** The catch-up e-mail's schedule (decisions §11): 06:00 in the person's time zone, every 1, 2 or 7 days, pure. */
import type { CatchUp } from "../domain/records.js"

const DAY_MS = 86_400_000
export const CATCH_UP_DAYS: Readonly<Record<CatchUp, number>> = { daily: 1, every_other_day: 2, weekly: 7 }
export const CATCH_UP_HOUR = 6

/** The offset of `zone` from UTC at `ms`, in ms (positive east of Greenwich). */
// one formatter per zone, made once: the scheduler asks for every subscriber at every tick
const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterOf = (zone: string) => {
  let f = formatters.get(zone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" })
    formatters.set(zone, f)
  }
  return f
}

const offsetMs = (zone: string, ms: number): number => {
  const parts = formatterOf(zone).formatToParts(new Date(ms))
  const v = (t: string) => Number(parts.find((p) => p.type === t)!.value)
  return Date.UTC(v("year"), v("month") - 1, v("day"), v("hour"), v("minute"), v("second")) - Math.floor(ms / 1000) * 1000
}

/** The latest 06:00 in `zone` at or before `now` (a daylight-saving change moves it with the clock). */
export const lastCatchUpSlot = (zone: string, now: number): number => {
  const local = now + offsetMs(zone, now)
  const day = Math.floor(local / DAY_MS) * DAY_MS
  let slotLocal = day + CATCH_UP_HOUR * 3_600_000
  if (slotLocal > local) slotLocal -= DAY_MS
  return slotLocal - offsetMs(zone, slotLocal - offsetMs(zone, now))
}

/** Whether a person's catch-up is due at `now`: the latest 06:00 has come, and none was made since the slot `days` back. */
export const catchUpDue = (catchUp: CatchUp, zone: string, lastSentAt: string | null, now: number): boolean =>
  lastSentAt === null || Date.parse(lastSentAt) < lastCatchUpSlot(zone, now) - (CATCH_UP_DAYS[catchUp] - 1) * DAY_MS
