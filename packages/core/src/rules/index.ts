export * from "./access.js"
export * from "./groups.js"
export * from "./memberships.js"
export * from "./users.js"
