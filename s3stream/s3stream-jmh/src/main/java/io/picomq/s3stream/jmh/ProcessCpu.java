package io.picomq.s3stream.jmh;

import java.time.Duration;

/** CPU time this process has used, all threads (JIT and GC included). */
final class ProcessCpu {

  private ProcessCpu() {}

  /** Nanoseconds of CPU used so far, or 0 where the platform does not tell. */
  static long nanos() {
    return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }
}
