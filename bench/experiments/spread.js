/**
 * What an object literal that copies another costs on this Node's V8, by where the copy stands. V8 11 (Node 20)
 * copies `{ ...a }` quickly, and `{ k: v, ...a }` too, but `{ ...a, k: v }` (a member after the spread) and
 * `{ ...a, ...b }` take its slow path: 40-100 times as long, about a microsecond an object, more with its size.
 * On a request's path (a document's records, a response's headers, a row's added field) convene writes the
 * spread last where nothing overlaps, else `Object.assign({}, a, { k: v })` (same keys, same order, same
 * winner for a plain record). Not for a body a client sent: `Object.assign` would run a `__proto__` key's setter.
 * `node bench/experiments/spread.js`
 */
const N = 1_000_000
const time = (name, f) => {
  for (let i = 0; i < 20_000; i++) f()
  const t = process.hrtime.bigint()
  for (let i = 0; i < N; i++) f()
  console.log(`${name.padEnd(36)} ${(Number(process.hrtime.bigint() - t) / N).toFixed(0).padStart(6)} ns`)
}
const text = { title: "A title", description: "Its description" }
const row = { id: 1, poll_id: 2, participant_id: 3, reason: null, latest: 1, created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z", cast_at: null, revoked_at: null, inviter_id: null }
const more = { z: 1, w: 2 }
console.log(`node ${process.version}, V8 ${process.versions.v8}`)
time("explicit { title: a.title, …, k }", () => ({ title: text.title, description: text.description, k: 1 }))
time("{ ...a }", () => ({ ...text }))
time("{ k, ...a } (spread last)", () => ({ k: 1, ...text }))
time("{ ...a, k } (a member after it)", () => ({ ...text, k: 1 }))
time("{ ...a, ...b }", () => ({ ...text, ...more }))
time("Object.assign({}, a, { k })", () => Object.assign({}, text, { k: 1 }))
time("a ballot row: { ...row, choices }", () => ({ ...row, choices: 1 }))
time("a ballot row: Object.assign", () => Object.assign({}, row, { choices: 1 }))
