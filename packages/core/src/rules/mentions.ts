/** Mentions (decisions §11): `@username` in a comment, a description or a reason names a member to notify, pure. */

/** At most this many people notified by one text (a pasted list of everyone is not a mention). */
export const MENTIONS_MAX = 50

// `@name` at the start or after a space or punctuation, never inside an address (ada@example.org)
const MENTION = /(^|[^A-Za-z0-9_.@/-])@([A-Za-z0-9][A-Za-z0-9._-]{0,63})/g

/** The usernames a text mentions, once each, in order (a trailing dot ends a sentence, not a name). */
export const mentionedUsernames = (text: string | null | undefined): ReadonlyArray<string> => {
  if (text == null) return []
  const names = new Set<string>()
  for (const m of text.matchAll(MENTION)) {
    names.add(m[2]!.replace(/[.-]+$/, "").toLowerCase())
    if (names.size >= MENTIONS_MAX) break
  }
  return [...names].filter((n) => n !== "")
}
