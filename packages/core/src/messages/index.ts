/**
 * What convene says to people, in their language (decisions §9): every page and mail text comes from these
 * catalogs in ICU MessageFormat (formatjs' intl-messageformat), English, German and French. A person's
 * language is their profile's; a page without one follows the browser's Accept-Language; mail, English.
 */
import { IntlMessageFormat } from "intl-messageformat"
import { isLocale, type Locale } from "../rules/users.js"
import { de } from "./de.js"
import { en, type MessageKey } from "./en.js"
import { fr } from "./fr.js"

export type { Locale, MessageKey }

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

/** Messages without values, said once per language and key (a page says "Reply" once a comment). */
const plain: Readonly<Record<Locale, Map<MessageKey, string>>> = { en: new Map(), de: new Map(), fr: new Map() }
/**
 * Messages with text and number values, remembered (bounded) per language: a thread page says "Edit the comment of
 * Ada" for each of Ada's comments, and formatting one costs more than the rest of its markup.
 */
const said: Readonly<Record<Locale, Map<string, string>>> = { en: new Map(), de: new Map(), fr: new Map() }
const SAID_MAX = 10_000

const memoKey = (key: MessageKey, values: Values): string | undefined => {
  let id: string = key
  for (const name in values) {
    const v = values[name]
    if (typeof v !== "string" && typeof v !== "number") return undefined
    id += `\u0000${name}\u0001${v}`
  }
  return id
}

export const translator = (locale: Locale): Translate => {
  const once = plain[locale]
  const memo = said[locale]
  return (key, values) => {
    if (values !== undefined) {
      const id = memoKey(key, values)
      if (id === undefined) return String(messageOf(locale, key).format(values))
      let text = memo.get(id)
      if (text === undefined) {
        text = String(messageOf(locale, key).format(values))
        if (memo.size >= SAID_MAX) memo.clear()
        memo.set(id, text)
      }
      return text
    }
    let text = once.get(key)
    if (text === undefined) {
      text = String(messageOf(locale, key).format())
      once.set(key, text)
    }
    return text
  }
}

/** The first language of an Accept-Language header convene speaks (by weight, then order), else undefined. */
export const fromAcceptLanguage = (header: string | undefined): Locale | undefined => {
  if (header === undefined) return undefined
  const ranked = header.split(",").map((part, i) => {
    const [tag, ...params] = part.trim().split(";")
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find((m) => m !== null)
    return { lang: (tag ?? "").trim().toLowerCase().split("-")[0] ?? "", q: q ? Number(q[1]) : 1, i }
  }).filter((r) => r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i)
  return ranked.map((r) => r.lang).find(isLocale)
}

/** The profile's language, else the browser's, else English. */
export const pickLocale = (profile: string | null | undefined, acceptLanguage?: string): Locale =>
  profile != null && isLocale(profile) ? profile : fromAcceptLanguage(acceptLanguage) ?? "en"

/** How mail speaks to a person: their profile's language (a mail has no browser to ask). */
export const mailTranslator = (recipient: { readonly locale: string | null } | undefined): Translate => translator(pickLocale(recipient?.locale))
