// Runs the official Durable Streams conformance suite against the server named by DS_BASE_URL.
import { defineConfig } from "vitest/config"

const longPollTimeoutMs = Number(process.env.DS_LONG_POLL_TIMEOUT_MS ?? "3000")

export default defineConfig({
  test: {
    include: ["conformance.test.mjs", "client-e2e.test.mjs"],
    // Long-poll tests wait for the server's timeout before they see a 204.
    testTimeout: longPollTimeoutMs + 10_000,
    hookTimeout: 30_000,
    reporters: ["default", "json"],
    outputFile: { json: process.env.DS_REPORT ?? "target/conformance-report.json" },
  },
})
