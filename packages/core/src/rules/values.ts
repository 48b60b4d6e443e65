/** Small checks every validation shares. */

/** Whether a word is one of a fixed set (and narrows it). */
export const isOneOf = <T extends string>(values: ReadonlyArray<T>, v: string): v is T => (values as ReadonlyArray<string>).includes(v)

/** Missing, or nothing but white space. */
export const isBlank = (s: string | null | undefined): boolean => s == null || s.trim() === ""
