// The official suite, pointed at a running server. The caller starts the server and exports
// DS_BASE_URL (and DS_LONG_POLL_TIMEOUT_MS, the server's long-poll timeout).
import { runConformanceTests } from "@durable-streams/server-conformance-tests"

const baseUrl = process.env.DS_BASE_URL
if (!baseUrl) throw new Error("DS_BASE_URL is not set")

runConformanceTests({
  baseUrl,
  longPollTimeoutMs: Number(process.env.DS_LONG_POLL_TIMEOUT_MS ?? "3000"),
})
