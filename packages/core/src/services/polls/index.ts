export * from "./events.js"
export * from "./read.js"
export * from "./write.js"
export * from "./export.js"
