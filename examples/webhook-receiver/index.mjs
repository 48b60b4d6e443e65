// A receiver for convene's outgoing webhooks (a chatbot of kind "webhook"): run with
// `PORT=8081 node examples/webhook-receiver/index.mjs`, then add a chatbot to a group whose server is
// http://<this host>:8081/ (a private address needs CONVENE_ALLOW_PRIVATE_WEBHOOKS=1 on the convene server).
// It prints each event's text, whatever the chatbot's webhook_kind, and answers 200 so convene does not retry.
import { createServer } from "node:http"

/** The readable text of a payload in each of convene's formats (markdown, slack, discord, microsoft, webex). */
const textOf = (payload) => payload.text ?? payload.content ?? payload.markdown ?? JSON.stringify(payload)

const server = createServer((req, res) => {
  if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end()
  const chunks = []
  let size = 0
  req.on("data", (chunk) => {
    size += chunk.length
    // convene's payloads are small; anything larger is not from it
    if (size > 1_000_000) req.destroy()
    else chunks.push(chunk)
  })
  req.on("end", () => {
    let payload
    try {
      payload = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return void res.writeHead(400).end()
    }
    console.log(`event: ${textOf(payload)}`)
    res.writeHead(200, { "content-type": "text/plain" }).end("ok")
  })
})

server.listen(Number(process.env.PORT ?? 8081), process.env.HOST ?? "127.0.0.1", () => {
  const { address, port } = server.address()
  console.log(`listening on http://${address}:${port}/`)
})
process.on("SIGTERM", () => server.close())
