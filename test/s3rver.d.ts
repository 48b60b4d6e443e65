/** s3rver 3.7 ships no types: what the tests use of it. */
declare module "s3rver" {
  import type { AddressInfo } from "node:net"
  export default class S3rver {
    constructor(options: { address?: string; port?: number; directory: string; silent?: boolean; configureBuckets?: Array<{ name: string; configs: Array<string | Buffer> }> })
    run(callback: (err: Error | null, address: AddressInfo) => void): void
    close(callback: (err?: Error) => void): void
  }
}
