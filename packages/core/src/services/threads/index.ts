export * from "./kernel.js"
export * from "./read.js"
