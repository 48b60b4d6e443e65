/**
 * Both stores read a flag as 0/1 (SQLite's own; PostgreSQL's booleans through `pgRowTypes`): a computed flag
 * outside a record's declaration (domain/model.ts reads those) is turned here, and a patch's flags are written so.
 */
export const bool = (v: unknown): boolean => v === 1 || v === true

export const fromBools = (patch: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(patch)) {
    if (v !== undefined) out[k] = typeof v === "boolean" ? (v ? 1 : 0) : v
  }
  return out
}
