/** Input rules for user records that every path (HTTP, CLI, embedding) shares. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export const normaliseEmail = (email: string): string => email.trim().toLowerCase()
export const isEmail = (email: string): boolean => EMAIL.test(email) && email.length <= 254

const USERNAME = /^[a-zA-Z0-9_.-]{1,64}$/
export const isUsername = (username: string): boolean => USERNAME.test(username)

const HANDLE = /^[a-z0-9][a-z0-9-]{1,62}$/
export const isHandle = (handle: string): boolean => HANDLE.test(handle)

/** Shown in place of a redacted or nameless author. */
export const displayName = (u: { name: string | null; username: string | null }): string =>
  u.name ?? u.username ?? "Anonymous"
