/** SQLite stores booleans as 0/1; these turn rows into records. */
export const bool = (v: unknown): boolean => v === 1 || v === true

export const toBools = <T>(row: Record<string, unknown>, keys: ReadonlyArray<string>): T => {
  const out: Record<string, unknown> = { ...row }
  for (const k of keys) out[k] = bool(row[k])
  return out as T
}

export const fromBools = (patch: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(patch)) {
    if (v !== undefined) out[k] = typeof v === "boolean" ? (v ? 1 : 0) : v
  }
  return out
}
