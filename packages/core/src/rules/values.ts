/** Small checks every validation shares. */

/** Whether a word is one of a fixed set (and narrows it). */
export const isOneOf = <T extends string>(values: ReadonlyArray<T>, v: string): v is T => (values as ReadonlyArray<string>).includes(v)

/** Missing, or nothing but white space. */
export const isBlank = (s: string | null | undefined): boolean => s == null || s.trim() === ""

/** C0 and C1 control characters (line breaks and tabs among them): a one-line text field holds none. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/**
 * What is wrong with a one-line plain-text field (a title, a person's or a group's name), or null: blank when it
 * is required, or holding control characters (decisions §5 "Plain text stays plain").
 */
export const plainLineErrors = (s: string | null | undefined, required: boolean): string | null =>
  isBlank(s) ? (required ? "can't be blank" : null) : CONTROL.test(s!) ? "must not contain control characters (such as line breaks)" : null
