package io.picomq.cli.client;

import io.picomq.client.Consumer;
import io.picomq.client.ConsumerOptions;
import io.picomq.client.LiveMode;
import io.picomq.client.PicoClient;
import io.picomq.client.ReadResult;
import io.picomq.client.StreamInfo;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pico tail STREAM [-f]}: prints the last records of a stream (or from {@code --seq}); with
 * {@code -f} it keeps printing records as they become durable until Ctrl-C or the stream is sealed.
 */
@Command(
    name = "tail",
    mixinStandardHelpOptions = true,
    header = "Print a stream's last records; -f follows it.",
    description = {
      "Prints the last --lines records, or from --seq. With -f, keeps printing records",
      "as they are appended, until Ctrl-C (exit 130) or the stream is sealed (exit 0).",
      "Formats as for read."
    })
public final class TailCommand extends StreamCommand {
  /** How long one poll waits before the loop checks again; the consumer long-polls inside. */
  private static final Duration POLL = Duration.ofSeconds(30);

  @Option(
      names = {"-n", "--lines"},
      defaultValue = "10",
      paramLabel = "N",
      description = "Start N records before the tail (default ${DEFAULT-VALUE}).")
  long lines;

  @Option(
      names = "--seq",
      paramLabel = "N",
      description = "Start at this seq instead (e.g. 0 for the whole stream).")
  Long seq;

  @Option(
      names = {"-f", "--follow"},
      description = "Keep printing records as they arrive.")
  boolean follow;

  @Option(
      names = "--live",
      defaultValue = "long-poll",
      paramLabel = "long-poll|sse",
      description = "How -f waits for records: long-poll or sse (default ${DEFAULT-VALUE}).")
  String live;

  @Option(
      names = "--format",
      defaultValue = "lines",
      paramLabel = "lines|json|raw",
      description = "Output format (default ${DEFAULT-VALUE}).")
  RecordFormat format;

  @Override
  int runOnStream(PicoClient client) {
    if (lines < 0 || (seq != null && seq < 0)) {
      throw new IllegalArgumentException("--lines and --seq must not be negative");
    }
    LiveMode liveMode =
        switch (live) {
          case "long-poll" -> LiveMode.LONG_POLL;
          case "sse" -> LiveMode.SSE;
          default ->
              throw new IllegalArgumentException("--live is long-poll or sse, not '" + live + "'");
        };
    long from;
    if (seq != null) {
      from = seq;
    } else {
      StreamInfo info = client.head(stream());
      from = Math.max(info.startSeq(), info.nextSeq() - lines);
    }
    RecordFormat effective = CatchUp.effectiveFormat(format, protocol(), client, stream());
    try (Output out = Output.stdout()) {
      RecordWriter writer = new RecordWriter(out, effective);
      if (!follow) {
        CatchUp.catchUp(client, stream(), from, 0, writer);
        return 0;
      }
      follow(client, from, liveMode, writer);
    }
    return 0;
  }

  /** Prints batches as they come, flushing each, until the stream is sealed and fully read. */
  private void follow(PicoClient client, long from, LiveMode liveMode, RecordWriter writer) {
    try (Consumer consumer =
        client.consumer(stream(), ConsumerOptions.fromSeq(from).live(liveMode))) {
      while (!consumer.isClosed()) {
        ReadResult batch = consumer.poll(POLL);
        writer.write(batch.records());
        writer.flush();
        if (batch.closed()) {
          break;
        }
      }
    }
    spec.commandLine().getErr().println("pico: stream " + stream() + " is sealed");
  }
}
