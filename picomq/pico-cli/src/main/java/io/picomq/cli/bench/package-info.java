/**
 * {@code pico bench}: drives appends at a stream (or several) at a chosen size, concurrency and
 * rate while a reader tails alongside, and reports throughput and latency percentiles of durable
 * acknowledgement and of end-to-end delivery. Latency is measured from each append's intended send
 * time, so a server that stalls cannot hide the stall by slowing the load down (coordinated
 * omission). Requests go through the {@code picomq-client} SDK behind {@link
 * io.picomq.cli.bench.BenchTarget}, which keeps the measurement core testable without a server.
 */
package io.picomq.cli.bench;
