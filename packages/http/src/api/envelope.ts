/**
 * The compound response envelope of the User API (spec: "Compound response envelope"; decisions.md §1):
 * primary records under their plural root, related records side-loaded under their own roots,
 * `meta: {root, total?}` with `total` absent where no exact size is defined.
 */

/** Singular type name → the root keys it removes when excluded. */
const EXCLUDES: Record<string, ReadonlyArray<string>> = {
  topic: ["topics"],
  group: ["groups"],
  parent: ["parent_groups", "parent_items"],
  membership: ["memberships"],
  reaction: ["reactions"],
  tag: ["tags"],
  translation: ["translations"],
  user: ["users"],
  discussion: ["discussions"],
  poll: ["polls"],
  poll_option: ["poll_options"],
  stance: ["stances"],
  stance_choice: ["stance_choices"],
  outcome: ["outcomes"],
  topic_item: ["items"],
  comment: ["comments"]
}

const COMPACT = ["topic", "group", "parent", "membership", "reaction", "tag", "translation"]

export interface ResponseOptions {
  /** Singular type names whose related records are left out. */
  readonly exclude: ReadonlySet<string>
}

/** `compact` (already decoded: only 1) and `exclude_types` (separated by spaces or '+'). */
export const responseOptions = (p: { readonly compact?: 1 | undefined; readonly exclude_types?: string | undefined }): ResponseOptions => {
  const exclude = new Set((p.exclude_types ?? "").split(/[\s+]+/).filter((t) => t !== ""))
  if (p.compact === 1) for (const t of COMPACT) exclude.add(t)
  return { exclude }
}

/** What the endpoints that take no response parameters answer with: everything. */
export const ALL: ResponseOptions = { exclude: new Set() }

/** Whether related records of a type are wanted (so handlers skip loading what is excluded). */
export const wants = (opts: ResponseOptions, type: string) => !opts.exclude.has(type)

type Json = object

/** Records of one type side-loaded under their root. */
export interface Related<Root extends string = string, A extends Json = Json> {
  readonly type: string
  readonly root: Root
  readonly records: ReadonlyArray<A>
}

export interface Meta {
  readonly root: string
  readonly total?: number
}

/** The document's type: the primary records under `Root`, each related root optional, `meta`. */
export type Document<Root extends string, P, Rel extends Related> =
  & { readonly [K in Root]: ReadonlyArray<P> }
  & { readonly [R in Rel as R["root"] extends Root ? never : R["root"]]?: R["records"] }
  & { readonly meta: Meta }

const NONE: ReadonlySet<string> = new Set()

/**
 * Builds the document. Related records of an excluded type are dropped; related records that share the
 * primary root are merged into it (no root key appears twice); duplicates by id are removed.
 */
export const envelope = <const Root extends string, P extends Json, const Rel extends Related = never>(
  opts: ResponseOptions,
  root: Root,
  primary: ReadonlyArray<P>,
  related: ReadonlyArray<Rel>,
  total?: number
): Document<Root, P, Rel> => {
  const removed = opts.exclude.size === 0 ? NONE : new Set([...opts.exclude].flatMap((t) => EXCLUDES[t] ?? []))
  const out: Record<string, Array<Json>> = {}
  const seen: Record<string, Set<unknown>> = {}
  const add = (key: string, records: ReadonlyArray<Json>) => {
    const list = (out[key] ??= [])
    const ids = (seen[key] ??= new Set())
    for (const r of records) {
      const id = (r as { readonly id?: unknown }).id
      if (id !== undefined && ids.has(id)) continue
      ids.add(id)
      list.push(r)
    }
  }
  add(root, primary)
  for (const r of related) {
    if (opts.exclude.has(r.type) || removed.has(r.root)) continue
    add(r.root, r.records)
  }
  // set, not spread into a copy (`{ ...out, meta }` is V8 11's slow path: about a microsecond a document)
  ;(out as Record<string, unknown>).meta = total === undefined ? { root } : { root, total }
  return out as never
}
