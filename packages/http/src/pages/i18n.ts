/**
 * The pages' languages (decisions §9): every text comes from a message catalog in ICU MessageFormat
 * (formatjs' intl-messageformat), English, German and French. The language is the person's profile choice,
 * else the browser's Accept-Language, else English; times are shown in the person's time zone, named.
 */
import { Rules } from "@convene/core"
import { IntlMessageFormat } from "intl-messageformat"
import { de } from "./messages/de.js"
import { en, type MessageKey } from "./messages/en.js"
import { fr } from "./messages/fr.js"

export type { MessageKey }
export type Locale = Rules.Locale

export const CATALOGS: Readonly<Record<Locale, Readonly<Record<MessageKey, string>>>> = { en, de, fr }

export type Values = Readonly<Record<string, string | number | Date>>
export type Translate = (key: MessageKey, values?: Values) => string

const compiled = new Map<string, IntlMessageFormat>()

/** A catalog's message, compiled once per language and key. */
const messageOf = (locale: Locale, key: MessageKey): IntlMessageFormat => {
  const id = `${locale}:${key}`
  let m = compiled.get(id)
  if (m === undefined) {
    // the catalogs' own markup (<strong>) is text to ICU: values put into it are escaped by the caller
    m = new IntlMessageFormat(CATALOGS[locale][key], locale, undefined, { ignoreTag: true })
    compiled.set(id, m)
  }
  return m
}

export const translator = (locale: Locale): Translate => (key, values) => String(messageOf(locale, key).format(values))

/** The first language of an Accept-Language header we speak (by weight, then order), else undefined. */
export const fromAcceptLanguage = (header: string | undefined): Locale | undefined => {
  if (header === undefined) return undefined
  const ranked = header.split(",").map((part, i) => {
    const [tag, ...params] = part.trim().split(";")
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find((m) => m !== null)
    return { lang: (tag ?? "").trim().toLowerCase().split("-")[0] ?? "", q: q ? Number(q[1]) : 1, i }
  }).filter((r) => r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i)
  return ranked.map((r) => r.lang).find(Rules.isLocale)
}

export const pickLocale = (profile: string | null | undefined, acceptLanguage: string | undefined): Locale =>
  profile != null && Rules.isLocale(profile) ? profile : fromAcceptLanguage(acceptLanguage) ?? "en"

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
  return {
    time: (iso) => (iso == null ? "" : full.format(new Date(iso))),
    slot: (option) => (/^\d{4}-\d{2}-\d{2}$/.test(option) ? day.format(new Date(`${option}T00:00:00Z`)) : full.format(new Date(option)))
  }
}

/** The instant's wall-clock parts in `zone`, as if they were UTC (for offset arithmetic). */
const wallClockMs = (ms: number, zone: string): number => {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit"
  }).formatToParts(new Date(ms))
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
