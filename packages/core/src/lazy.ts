/**
 * Libraries that are large to load and needed only by some requests (markdown rendering, HTML sanitising,
 * HTML-to-markdown) load on first use: importing the core or starting a server stays lean (decisions §6).
 */
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

/** `make(module)` on first call, then the same value. */
export const onFirstUse = <M, A>(id: string, make: (module: M) => A): (() => A) => {
  let value: { a: A } | undefined
  return () => (value ??= { a: make(require(id) as M) }).a
}
