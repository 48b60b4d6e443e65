/**
 * The pages' languages and times (decisions §9): texts from the core's catalogs (core/src/messages), in the
 * person's profile language, else the browser's Accept-Language, else English; times in the person's time
 * zone, named.
 */
import { Messages, Rules } from "@convene/core"

export type Locale = Messages.Locale
export type MessageKey = Messages.MessageKey
export type Translate = Messages.Translate
export const { pickLocale, translator } = Messages

/** The server's own zone (TZ, else UTC) for signed-out visitors and people who chose none. */
export const serverZone = (): string => {
  const zone = process.env.TZ
  return zone !== undefined && zone !== "" && Rules.isTimeZone(zone) ? zone : "UTC"
}

export interface TimeFormatter {
  /** an instant (ISO 8601) */
  readonly time: (iso: string | null | undefined) => string
  /** a meeting option: a date-time in the reader's zone, or a whole day as written */
  readonly slot: (option: string) => string
}

// making an Intl.DateTimeFormat costs more than the rest of a page (measured: 60% of a thread page's CPU), so one
// is made per language and zone (at most the runtime's ~420 zones times three languages)
const formatters = new Map<string, TimeFormatter>()

/** Formats instants for one reader: their language, their zone, the zone named. */
export const timeFormatter = (locale: Locale, zone: string): TimeFormatter => {
  const id = `${locale} ${zone}`
  let f = formatters.get(id)
  if (f === undefined) {
    f = makeTimeFormatter(locale, zone)
    formatters.set(id, f)
  }
  return f
}

const makeTimeFormatter = (locale: Locale, zone: string): TimeFormatter => {
  const full = new Intl.DateTimeFormat(locale, {
    weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZone: zone, timeZoneName: "short"
  })
  const day = new Intl.DateTimeFormat(locale, { weekday: "long", year: "numeric", month: "long", day: "numeric", timeZone: "UTC" })
  // what it shows goes to the minute: instants of one minute (a busy thread's comments) are formatted once
  const minutes = new Map<string, string>()
  return {
    time: (iso) => {
      if (iso == null) return ""
      // the stores write instants in UTC ("…Z"); anything else is formatted as it comes
      if (!iso.endsWith("Z")) return full.format(new Date(iso))
      const minute = iso.slice(0, 16)
      let text = minutes.get(minute)
      if (text === undefined) {
        text = full.format(new Date(iso))
        if (minutes.size >= 10_000) minutes.clear()
        minutes.set(minute, text)
      }
      return text
    },
    slot: (option) => (/^\d{4}-\d{2}-\d{2}$/.test(option) ? day.format(new Date(`${option}T00:00:00Z`)) : full.format(new Date(option)))
  }
}

/** The instant's wall-clock parts in `zone`, as if they were UTC (for offset arithmetic). */
// one formatter per zone, as above (a poll page's default closing time made one per request: 10 % of its CPU)
const clocks = new Map<string, Intl.DateTimeFormat>()
const clockOf = (zone: string): Intl.DateTimeFormat => {
  let f = clocks.get(zone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit"
    })
    clocks.set(zone, f)
  }
  return f
}

const wallClockMs = (ms: number, zone: string): number => {
  const parts = clockOf(zone).formatToParts(new Date(ms))
  const n = (type: string) => Number(parts.find((p) => p.type === type)!.value)
  return Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"), n("second"))
}

/**
 * A wall-clock time typed in `zone` ("2026-12-03T14:00" or "2026-12-03 14:00") as a UTC ISO instant, or
 * undefined when it is not one. The offset is found at the guess and again at the result (a DST change).
 */
export const zonedToUtc = (local: string, zone: string): string | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$/.exec(local.trim())
  if (m === null) return undefined
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number]
  const guess = Date.UTC(y, mo - 1, d, h, mi)
  if (Number.isNaN(guess) || new Date(guess).getUTCDate() !== d || h > 23 || mi > 59) return undefined
  let at = guess - (wallClockMs(guess, zone) - guess)
  at = guess - (wallClockMs(at, zone) - at)
  return new Date(at).toISOString()
}

/** An instant as the value of a datetime-local field in `zone`. */
export const utcToZonedInput = (iso: string, zone: string): string => new Date(wallClockMs(Date.parse(iso), zone)).toISOString().slice(0, 16)

const percents = new Map<string, Intl.NumberFormat>()

/** A share (0–100) as the reader's language writes a percentage. */
export const percentText = (locale: Locale, pct: number): string => {
  let f = percents.get(locale)
  if (f === undefined) {
    f = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 })
    percents.set(locale, f)
  }
  return f.format(pct / 100)
}

// one number formatter per language and unit
const sizes = new Map<string, Intl.NumberFormat>()
/** A file's size in the reader's language: "820 byte", "12 kB", "3.4 MB". */
export const sizeText = (locale: Locale, bytes: number): string => {
  const [unit, value] = bytes < 1000 ? ["byte", bytes] as const : bytes < 1_000_000 ? ["kilobyte", bytes / 1000] as const : ["megabyte", bytes / 1_000_000] as const
  const id = `${locale} ${unit}`
  let f = sizes.get(id)
  if (f === undefined) {
    f = new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "short", maximumFractionDigits: 1 })
    sizes.set(id, f)
  }
  return f.format(value)
}
