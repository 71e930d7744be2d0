// End to end with the official TypeScript client (@durable-streams/client): create, append,
// catch-up read, live tail (long-poll and SSE), resume from a saved offset, idempotent producer.
import { describe, expect, test } from "vitest"
import { DurableStream, IdempotentProducer } from "@durable-streams/client"

const baseUrl = process.env.DS_BASE_URL
if (!baseUrl) throw new Error("DS_BASE_URL is not set")

const unique = (name) =>
  `${baseUrl}/v1/stream/client-e2e/${name}-${Date.now()}-${Math.random().toString(36).slice(2)}`

/** Collects JSON items from a live response until `count` arrived. */
function collect(response, count) {
  return new Promise((resolve) => {
    const items = []
    const unsubscribe = response.subscribeJson((batch) => {
      items.push(...batch.items)
      if (items.length >= count) {
        unsubscribe()
        response.cancel()
        resolve(items)
      }
    })
  })
}

describe("official client end to end", () => {
  test("create, append and read back", async () => {
    const stream = await DurableStream.create({ url: unique("basic"), contentType: "application/json" })
    await stream.append(JSON.stringify({ n: 1 }))
    await stream.append(JSON.stringify({ n: 2 }))
    const response = await stream.stream({ live: false })
    expect(await response.json()).toEqual([{ n: 1 }, { n: 2 }])
    expect(response.upToDate).toBe(true)
  })

  for (const live of ["long-poll", "sse"]) {
    test(`live tail over ${live}`, async () => {
      const stream = await DurableStream.create({ url: unique(live), contentType: "application/json" })
      await stream.append(JSON.stringify({ n: 0 }))
      const response = await stream.stream({ live })
      const received = collect(response, 3)
      await new Promise((resolve) => setTimeout(resolve, 200))
      await stream.append(JSON.stringify({ n: 1 }))
      await stream.append(JSON.stringify({ n: 2 }))
      expect(await received).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }])
    })
  }

  test("resume from a saved offset", async () => {
    const stream = await DurableStream.create({ url: unique("resume"), contentType: "text/plain" })
    await stream.append("before ")
    const first = await stream.stream({ live: false })
    expect(await first.text()).toBe("before ")
    const saved = first.offset
    await stream.append("after")
    const resumed = await stream.stream({ offset: saved, live: false })
    expect(await resumed.text()).toBe("after")
    const fresh = new DurableStream({ url: stream.url })
    const again = await fresh.stream({ offset: saved, live: false })
    expect(await again.text()).toBe("after")
  })

  test("an idempotent producer writes every message exactly once, in order", async () => {
    const stream = await DurableStream.create({ url: unique("producer"), contentType: "application/json" })
    const producer = new IdempotentProducer(stream, "e2e-producer", { lingerMs: 1, maxInFlight: 4 })
    for (let i = 0; i < 200; i++) producer.append(JSON.stringify({ i }))
    await producer.flush()
    await producer.restart()
    producer.append(JSON.stringify({ i: 200 }))
    const closed = await producer.close(JSON.stringify({ i: 201 }))
    expect(closed.finalOffset).toBeTruthy()
    const response = await stream.stream({ live: false })
    const items = await response.json()
    expect(items.map((item) => item.i)).toEqual(Array.from({ length: 202 }, (_, i) => i))
    const head = await stream.head()
    expect(head.streamClosed).toBe(true)
    expect(head.offset).toBe(closed.finalOffset)
    await expect(stream.append(JSON.stringify({ late: true }))).rejects.toThrow()
  })
})
