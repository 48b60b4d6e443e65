import { responseOptions } from "./envelope.js"
import { page } from "./params.js"

/** What every list of a group's records starts from: response options and the page, from decoded parameters. */
export const groupListRequest = (p: {
  readonly group_id: number
  readonly compact?: 1 | undefined
  readonly exclude_types?: string | undefined
  readonly limit?: number | undefined
  readonly offset?: number | undefined
  readonly per?: number | undefined
  readonly from?: number | undefined
}) => ({ opts: responseOptions(p), groupId: p.group_id, page: page(p) })
