/** `convene webhooks deliveries`: the state of webhook deliveries (decisions.md §4); `redeliver ID…|--dead`. */
import { Deliveries, DELIVERY_STATUSES, type DeliveryStatus, Groups } from "@convene/core"
import { type Command, InvalidArgumentError } from "commander"
import { allPages, type CommonOptions, registerRetry, withConvene } from "../common.js"
import { deliveryLine } from "../format.js"

interface DeliveriesOptions extends CommonOptions {
  readonly group?: string
  readonly status?: DeliveryStatus
}

const parseStatus = (value: string): DeliveryStatus => {
  if ((DELIVERY_STATUSES as ReadonlyArray<string>).includes(value)) return value as DeliveryStatus
  throw new InvalidArgumentError(`expected one of ${DELIVERY_STATUSES.join(", ")}`)
}

export const registerWebhooks = (program: Command) => {
  const webhooks = program.command("webhooks").description("outgoing webhooks")

  webhooks.command("deliveries")
    .description("show webhook deliveries, newest first")
    .option("--group <group>", "only this group's (id, key or handle)")
    .option("--status <status>", `only ${DELIVERY_STATUSES.join("/")}`, parseStatus)
    .action((opts: DeliveriesOptions) =>
      withConvene(opts, async (c, out) => {
        const group = opts.group === undefined ? undefined : await c.run(Groups.findGroup(opts.group))
        const rows = await allPages((page) =>
          c.run(Deliveries.listDeliveries({
            ...(group === undefined ? {} : { group_id: group.id }),
            ...(opts.status === undefined ? {} : { status: opts.status })
          }, page)))
        out.emit(rows, rows.map(deliveryLine))
      }))

  registerRetry(webhooks, "redeliver", { one: "delivery", many: "deliveries", key: "redelivered" }, (c, ids) => c.run(Deliveries.redeliver(ids)))
}
