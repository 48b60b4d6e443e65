/**
 * ISO 8601 dates and date-times as the API reads them. A date-time without an offset means UTC
 * (decisions.md §1, as Rails with its default zone), whatever the server's TZ.
 */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|z|[+-]\d{2}:?\d{2})?$/

const parts = (s: string) => {
  const m = DATE.exec(s) ?? DATE_TIME.exec(s)
  if (m === null) return undefined
  const [, y, mo, d, hh = "00", mm = "00", ss = "00", frac = "", zone] = m
  const [Y, M, D, h, mi, sec] = [y, mo, d, hh, mm, ss].map(Number) as [number, number, number, number, number, number]
  const day = new Date(Date.UTC(Y, M - 1, D))
  const real = day.getUTCFullYear() === Y && day.getUTCMonth() === M - 1 && day.getUTCDate() === D && h < 24 && mi < 60 && sec < 60
  return real ? { Y, M, D, h, mi, sec, ms: frac === "" ? 0 : Math.floor(Number(`0${frac}`) * 1000), zone } : undefined
}

const offsetMinutes = (zone: string | undefined): number => {
  if (zone === undefined || zone === "Z" || zone === "z") return 0
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]))
}

/** Milliseconds since the epoch of an ISO 8601 date-time (a bare date is its UTC midnight), or undefined. */
export const parseDateTime = (s: string): number | undefined => {
  const p = parts(s)
  if (p === undefined) return undefined
  return Date.UTC(p.Y, p.M - 1, p.D, p.h, p.mi, p.sec, p.ms) - offsetMinutes(p.zone) * 60_000
}

/** A real calendar date or date-time in ISO 8601 form. */
export const isIsoDateOrDateTime = (s: string): boolean => parts(s) !== undefined

/** A real calendar date, YYYY-MM-DD. */
export const isIsoDate = (s: string): boolean => DATE.test(s) && parts(s) !== undefined
