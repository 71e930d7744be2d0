package io.picomq.s3stream.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.picomq.s3stream.time.Scheduler;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The threads, time and memory an {@link Engine} runs on, all owned by whoever built it (the engine
 * starts no thread and closes none of these).
 *
 * @param executor runs acknowledgements, uploads and commits (the engine serialises what must be
 *     serial itself); must not run tasks on the submitting thread
 * @param scheduler timers (append wait, upload interval, commit retry) and the monotonic clock
 * @param clock wall-clock time (the block cache's TTL)
 * @param allocator allocates encoded batches and object headers
 * @param registry receives the {@code s3stream.*} meters
 */
public record EngineResources(
    Executor executor,
    Scheduler scheduler,
    Clock clock,
    ByteBufAllocator allocator,
    MeterRegistry registry) {

  public EngineResources {
    Objects.requireNonNull(executor, "executor");
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(allocator, "allocator");
    Objects.requireNonNull(registry, "registry");
  }
}
