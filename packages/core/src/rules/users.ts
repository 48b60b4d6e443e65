/** Input rules for user records that every path (HTTP, CLI, embedding) shares. */
import type { CatchUp } from "../domain/records.js"
import { type Access, isActivePerson } from "./access.js"
/**
 * The HTML standard's "valid e-mail address" (printable ASCII only: no control characters, no bidi
 * overrides), with a dot required in the domain; at most 254 characters.
 */
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/

export const normaliseEmail = (email: string): string => email.trim().toLowerCase()
export const isEmail = (email: string): boolean => email.length <= 254 && EMAIL.test(email)

/** The first address of a list that is not a valid e-mail address (after normalising), as a message; else null. */
export const emailsErrors = (emails: ReadonlyArray<string> | undefined): string | null => {
  const bad = (emails ?? []).find((e) => !isEmail(normaliseEmail(e)))
  return bad === undefined ? null : `${JSON.stringify(bad)} is not a valid e-mail address`
}

const USERNAME = /^[a-zA-Z0-9_.-]{1,64}$/
export const isUsername = (username: string): boolean => USERNAME.test(username)

const HANDLE = /^[a-z0-9][a-z0-9-]{1,62}$/
export const isHandle = (handle: string): boolean => HANDLE.test(handle)

/** Shown in place of a redacted or nameless author. */
export const displayName = (u: { name: string | null; username: string | null }): string =>
  u.name ?? u.username ?? "Anonymous"

/** The languages pages and mail are written in (decisions §9); the first is the fallback. */
export const LOCALES = ["en", "de", "fr"] as const
export type Locale = (typeof LOCALES)[number]
export const isLocale = (s: string): s is Locale => (LOCALES as ReadonlyArray<string>).includes(s)

/** An IANA time zone name this runtime knows ("Europe/Berlin", "UTC"). */
export const isTimeZone = (zone: string): boolean => {
  if (zone.length === 0 || zone.length > 64) return false
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export interface ProfileInput {
  readonly name: string
  readonly time_zone: string
  readonly locale: string
  /** the catch-up e-mail: "" (Off), daily, every_other_day or weekly; absent leaves it as it is */
  readonly catch_up?: string
}

export const CATCH_UPS: ReadonlyArray<CatchUp> = ["daily", "every_other_day", "weekly"]
export const isCatchUp = (v: string): v is CatchUp => (CATCH_UPS as ReadonlyArray<string>).includes(v)

/** What is wrong with a profile form, field by field (empty: nothing). */
export const profileErrors = (p: ProfileInput): Record<string, string> => {
  const errors: Record<string, string> = {}
  const name = p.name.trim()
  if (name.length === 0) errors.name = "blank"
  else if (name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) errors.name = "invalid"
  if (p.time_zone !== "" && !isTimeZone(p.time_zone)) errors.time_zone = "invalid"
  if (p.locale !== "" && !isLocale(p.locale)) errors.locale = "invalid"
  if (p.catch_up !== undefined && p.catch_up !== "" && !isCatchUp(p.catch_up)) errors.catch_up = "invalid"
  return errors
}

/** A person's own account (their data, its address, its deletion) is theirs, while it is active: the caller's alone. */
export const canManageOwnAccount = (access: Access): boolean => isActivePerson(access)
