package io.picomq.cli.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.picomq.cli.ExitCode;
import io.picomq.cli.Pico;
import io.picomq.cli.config.Setting;
import io.picomq.client.BearerToken;
import io.picomq.client.Protocol;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code pico bench}: measures a server with a temporary stream (or several). The final report goes
 * to standard output (text, or JSON with {@code --json}); progress lines and problems go to
 * standard error. The endpoint, protocol and HTTP version resolve as for every client verb (flag,
 * {@code PICO_*} variable, profile, default). Exit codes: 0 the run went cleanly, 1 it finished but
 * appends failed or the reader missed records (the report says which) or the server refused the
 * setup, 2 bad flags, 4 the server could not be reached.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Benchmark a server: throughput and latency of appends and delivery.",
    description = {
      "Benchmark a server: write and tail temporary streams, then report throughput",
      "and latency percentiles of durable acknowledgement and end-to-end delivery,",
      "counted from each append's intended send time (no coordinated omission).",
      "The report goes to stdout, a progress line every --interval to stderr."
    })
public final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--streams",
      defaultValue = "1",
      description = "Temporary streams, shared round-robin by the writers (${DEFAULT-VALUE}).")
  int streams;

  @Option(
      names = "--record-size",
      defaultValue = "1KiB",
      description = "Bytes per record, at least 24 (${DEFAULT-VALUE}).")
  String recordSize;

  @Option(
      names = "--duration",
      defaultValue = "10s",
      description = "Measured time after the warm-up, e.g. 30s, 5m (${DEFAULT-VALUE}).")
  String duration;

  @Option(
      names = "--warmup",
      defaultValue = "2s",
      description = "Load before measuring; not counted (${DEFAULT-VALUE}).")
  String warmup;

  @Option(
      names = "--writers",
      defaultValue = "16",
      description = "Appends in flight: each writer keeps one outstanding (${DEFAULT-VALUE}).")
  int writers;

  @Option(
      names = "--records-per-append",
      defaultValue = "1",
      description =
          "Records per append; with --producer, unacknowledged records per writer (${DEFAULT-VALUE}).")
  int recordsPerAppend;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description = "Target records/s of all writers together; 0 = as fast as possible.")
  double rate;

  @Option(
      names = "--connections",
      defaultValue = "1",
      description =
          "Client instances (connection pools) to spread the writers over (${DEFAULT-VALUE}).")
  int connections;

  @Option(
      names = "--interval",
      defaultValue = "1s",
      description = "Progress line every interval on stderr; 0 for none (${DEFAULT-VALUE}).")
  String interval;

  @Option(names = "--write-only", description = "No reader: measure acknowledgement only.")
  boolean writeOnly;

  @Option(
      names = "--producer",
      description = "Send one record at a time through the SDK's idempotent producer session.")
  boolean producer;

  @Option(names = "--json", description = "Print the final report as JSON.")
  boolean json;

  @Option(
      names = "--drain-timeout",
      defaultValue = "30s",
      description =
          "At the end, how long the reader may go without progress before giving up (${DEFAULT-VALUE}).")
  String drainTimeout;

  @Override
  public Integer call() throws Exception {
    // Bad flags and unreachable servers are thrown: the launcher turns them into one line and
    // its documented exit code (2 usage, 4 unavailable, 1 refused).
    BenchConfig config = config();
    Pico pico = Pico.of(spec);
    URI endpoint = URI.create(pico.setting(Setting.ENDPOINT));
    String protocolName = pico.setting(Setting.PROTOCOL);
    boolean http2 = Boolean.parseBoolean(pico.setting(Setting.HTTP2));
    Protocol protocol = protocolName.equals("ds") ? Protocol.DURABLE_STREAMS : Protocol.PICO;
    PrintStream err = System.err;
    BenchReport report;
    Optional<BearerToken> token = pico.token();
    try (SdkTarget target =
        new SdkTarget(
            endpoint, protocol, http2, token, pico.caCertificate(), config.connections())) {
      BenchRun run = new BenchRun(config, target, err, System::nanoTime);
      Thread cleanup = new Thread(() -> stopOnExit(run, target), "pico-bench-cleanup");
      Runtime.getRuntime().addShutdownHook(cleanup);
      try {
        report = run.run(BenchReport.Settings.of(config, endpoint.toString(), protocolName, http2));
      } finally {
        removeHook(cleanup);
      }
    }
    PrintStream out = System.out;
    if (json) {
      out.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report));
    } else {
      out.print(report.text());
    }
    out.flush();
    return report.problems().isEmpty() ? ExitCode.OK : ExitCode.FAILURE;
  }

  BenchConfig config() {
    long size = Quantities.bytes("--record-size", recordSize);
    if (size > 64L * 1024 * 1024) {
      throw new IllegalArgumentException("--record-size must be at most 64MiB");
    }
    return new BenchConfig(
        streams,
        (int) size,
        Quantities.duration("--duration", duration),
        Quantities.duration("--warmup", warmup),
        writers,
        recordsPerAppend,
        rate,
        connections,
        Quantities.duration("--interval", interval),
        writeOnly,
        producer,
        Quantities.duration("--drain-timeout", drainTimeout));
  }

  /**
   * Ctrl-C (or SIGTERM) in the middle of a run: stop the load and let the run delete its streams,
   * so they do not outlive it; delete them here if the run does not finish in time.
   */
  private static void stopOnExit(BenchRun run, BenchTarget target) {
    run.abort();
    try {
      if (run.awaitFinished(Duration.ofSeconds(10))) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (String stream : run.streams()) {
      try {
        target.delete(stream);
      } catch (RuntimeException e) {
        // best effort: the process is exiting
      }
    }
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down already: the hook runs
    }
  }
}
