import type { Rules } from "@convene/core"

/** What webhook messages say about this installation. */
export const site = (baseUrl: string): Rules.Site => ({
  baseUrl: baseUrl.replace(/\/+$/, ""),
  name: "convene",
  themeColor: "#2F6B5E"
})
