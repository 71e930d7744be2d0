package io.picomq.s3stream.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;

/** CPU time used by this process (all threads, JIT and GC included) or by one thread. */
final class ProcessCpu {

  private ProcessCpu() {}

  /** Nanoseconds of CPU used so far, or 0 where the platform does not tell. */
  static long nanos() {
    return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }

  /** Nanoseconds of CPU the calling thread has used so far, or 0 where not supported. */
  static long currentThreadNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : 0;
  }
}
