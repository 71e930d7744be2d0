package io.picomq.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGHUP for {@code pico serve}: reads the TLS files again, as operators expect of a server whose
 * certificate a tool such as certbot renews in place.
 *
 * <p>{@code sun.misc.Signal} (module {@code jdk.unsupported}, which the dist's jlink runtime
 * holds): the JDK has no supported API for signals other than the shutdown ones. The handler runs
 * on a thread the JVM starts for the signal, so reading files there blocks nobody.
 */
@SuppressForbidden(reason = "SIGHUP has no supported API; jdk.unsupported is in the dist runtime")
final class ReloadSignal {
  private ReloadSignal() {}

  /**
   * From now on SIGHUP runs {@code reload} (instead of ending the process); false when the process
   * was started with SIGHUP ignored (by {@code nohup}, say), which the JVM then keeps ignoring.
   */
  static boolean install(Runnable reload) {
    return Signal.handle(new Signal("HUP"), signal -> reload.run()) != SignalHandler.SIG_IGN;
  }
}
