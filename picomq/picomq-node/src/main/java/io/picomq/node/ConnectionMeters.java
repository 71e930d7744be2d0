package io.picomq.node;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.picomq.frontend.http.ConnectionBudget;
import io.picomq.frontend.http.ConnectionBudget.CloseReason;
import java.util.Locale;

/**
 * The node's file descriptors and its listeners' connections in {@code /metrics}:
 *
 * <ul>
 *   <li>{@code process_files_open_files}, {@code process_files_max_files}: descriptors open now and
 *       the process's limit (Micrometer's {@link FileDescriptorMetrics});
 *   <li>{@code picomq_http_connections{listener}}: open connections of the {@code pico}, {@code ds}
 *       or {@code admin} listener, and {@code picomq_http_connections_max{listener}} its cap;
 *   <li>{@code picomq_http_connections_closed_total{listener,reason}}: connections the server
 *       closed, {@code reason} one of {@code refused}, {@code header_timeout}, {@code
 *       idle_timeout}.
 * </ul>
 */
final class ConnectionMeters {

  private ConnectionMeters() {}

  /** Binds the descriptor gauges and answers the process's limit, 0 when the OS does not say. */
  static long bindFileDescriptors(MeterRegistry registry) {
    new FileDescriptorMetrics().bindTo(registry);
    Gauge max = registry.find("process.files.max").gauge();
    double value = max == null ? Double.NaN : max.value();
    return Double.isFinite(value) && value > 0 ? (long) value : 0;
  }

  /** Registers one listener's connection meters, tagged {@code listener}. */
  static void bind(MeterRegistry registry, String listener, ConnectionBudget budget) {
    Gauge.builder("picomq.http.connections", budget, ConnectionBudget::open)
        .description("Open connections of a listener")
        .tag("listener", listener)
        .strongReference(true)
        .register(registry);
    Gauge.builder("picomq.http.connections.max", budget, ConnectionBudget::max)
        .description("A listener's cap on open connections; more are refused with 503")
        .tag("listener", listener)
        .strongReference(true)
        .register(registry);
    for (CloseReason reason : CloseReason.values()) {
      FunctionCounter.builder(
              "picomq.http.connections.closed", budget, closed -> closed.closed(reason))
          .description("Connections the server closed: refused at the cap, or timed out")
          .tag("listener", listener)
          .tag("reason", reason.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
  }
}
