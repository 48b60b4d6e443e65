/** How a client names a record: a numeric id, or a stable key (Loomio's URLs carry both). */
const NUMERIC_ID = /^[0-9]{1,15}$/

export const isNumericId = (text: string): boolean => NUMERIC_ID.test(text)

export type RecordRef = { readonly id: number } | { readonly key: string }

/** A reference as sent: digits are an id, anything else a key. */
export const recordRef = (ref: string | number): RecordRef => {
  const text = String(ref)
  return isNumericId(text) ? { id: Number(text) } : { key: text }
}
