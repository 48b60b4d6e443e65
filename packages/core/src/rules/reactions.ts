/** Reactions as the pages offer them (decisions §13): Loomio's common emoji first, then a few more of its picker's. */
export const REACTION_EMOJI = ["👍", "❤️", "🎉", "🙂", "😂", "😮", "😢", "🙏", "👀", "👎"] as const

/** Reactions to one record, by emoji in the order first given: how many, who, and the reader's own (to remove). */
export interface ReactionSummary {
  readonly emoji: string
  readonly count: number
  readonly userIds: ReadonlyArray<number>
  /** the reader's own reaction of this emoji, if any */
  readonly mine: number | undefined
}

export const summariseReactions = (
  reactions: ReadonlyArray<{ readonly id: number; readonly user_id: number; readonly reaction: string }>,
  readerId: number
): ReadonlyArray<ReactionSummary> => {
  const byEmoji = new Map<string, { userIds: Array<number>; mine: number | undefined }>()
  for (const r of reactions) {
    const entry = byEmoji.get(r.reaction) ?? { userIds: [], mine: undefined }
    entry.userIds.push(r.user_id)
    if (r.user_id === readerId) entry.mine = r.id
    byEmoji.set(r.reaction, entry)
  }
  return [...byEmoji].map(([emoji, e]) => ({ emoji, count: e.userIds.length, userIds: e.userIds, mine: e.mine }))
}
