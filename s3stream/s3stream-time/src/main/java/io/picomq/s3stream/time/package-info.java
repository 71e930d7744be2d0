/**
 * Time for the engine: a monotonic clock with one-shot timers ({@link
 * io.picomq.s3stream.time.Scheduler}), which every engine module that waits schedules on (WAL batch
 * windows, upload intervals, retry backoffs, attempt timeouts, compaction), and the one exponential
 * backoff those retries wait out ({@link io.picomq.s3stream.time.Backoff}). Code that waits takes a
 * {@code Scheduler} in its constructor, so a test can substitute a manual clock and step through
 * timeouts without sleeping.
 *
 * <p>Part of the engine's facade: the host may use it too (its SQL log paces its retries with
 * {@code Backoff}, and its service bounds requests with {@code Scheduler.system()}), and it depends
 * only on Netty's common module.
 */
package io.picomq.s3stream.time;
