package io.picomq.cli.client;

import io.picomq.cli.CommandFailures;
import io.picomq.cli.ExitCode;
import io.picomq.cli.Failure;
import io.picomq.client.AppendOptions;
import io.picomq.client.AppendResult;
import io.picomq.client.PicoClient;
import io.picomq.client.ProducerId;
import io.picomq.client.Protocol;
import io.picomq.client.Record;
import io.picomq.client.ServiceUnavailableException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pico append STREAM}: one record per line of standard input (without its newline), sent in
 * batches; or, with {@code --whole}, all of standard input as one record.
 */
@Command(
    name = "append",
    mixinStandardHelpOptions = true,
    header = "Append standard input to a stream, one record per line.",
    description = {
      "Each line of standard input is a record (without its newline), sent --batch",
      "records per request; --whole sends all of it as one record. Under --protocol ds",
      "a stream that is not JSON keeps the newlines: its bytes are the input.",
      "",
      "A server that answers 503 (unavailable) fails the command with exit code 4,",
      "unless --retry resends the request. A plain append that timed out in the server",
      "may still complete, so its resend can write the records twice; with",
      "--producer-id the server recognises a resend, and retrying is on by default."
    })
public final class AppendCommand extends StreamCommand {
  /** A batch is sent early once its bodies reach this size, well under the server's body cap. */
  static final long MAX_BATCH_BYTES = 1 << 20;

  @Option(
      names = "--batch",
      defaultValue = "100",
      paramLabel = "N",
      description = "Records per append request (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--whole", description = "Append all of standard input as one record.")
  boolean whole;

  @Option(names = "--close", description = "Seal the stream after the last record.")
  boolean close;

  @Option(
      names = "--producer-id",
      paramLabel = "ID",
      description = "Append as this idempotent producer: a retried run is not written twice.")
  String producerId;

  @Option(
      names = "--producer-epoch",
      defaultValue = "0",
      paramLabel = "N",
      description = "The producer's epoch (default ${DEFAULT-VALUE}).")
  long producerEpoch;

  @Option(
      names = "--producer-seq",
      defaultValue = "0",
      paramLabel = "N",
      description =
          "The producer seq of the first request; each request takes the next (default"
              + " ${DEFAULT-VALUE}).")
  long producerSeq;

  @Option(
      names = "--retry",
      arity = "0..1",
      fallbackValue = "30s",
      paramLabel = "DURATION",
      description =
          "Resend a request answered 503 (server unavailable) for up to DURATION (default 30s"
              + " when given without one), waiting at least the server's Retry-After.")
  String retry;

  // Counters of this run, reported at the end; one thread.
  private long records;
  private long requests;
  private long duplicates;
  private long nextSeq = -1;
  private Optional<Duration> retryBudget = Optional.empty();

  @Override
  int runOnStream(PicoClient client) {
    if (batch < 1) {
      throw new IllegalArgumentException("--batch must be at least 1, not " + batch);
    }
    if (producerId == null && (producerEpoch != 0 || producerSeq != 0)) {
      throw new IllegalArgumentException("--producer-epoch and --producer-seq need --producer-id");
    }
    retryBudget =
        retry == null ? Optional.empty() : Optional.of(TimeArguments.duration("--retry", retry));
    InputStream stdin = new FileInputStream(FileDescriptor.in);
    if (whole) {
      send(client, List.of(Record.of(readAll(stdin))), close);
    } else {
      appendLines(client, new LineReader(stdin, keepsNewlines(client)));
    }
    report();
    return 0;
  }

  /**
   * Under Durable Streams a byte stream has no record boundaries: the appended bodies run together.
   * Keeping each newline makes the stream's bytes equal to the input, which is what a reader sees.
   */
  private boolean keepsNewlines(PicoClient client) {
    if (protocol() != Protocol.DURABLE_STREAMS) {
      return false;
    }
    String contentType = client.head(stream()).contentType().toLowerCase(Locale.ROOT);
    return !contentType.startsWith("application/json") && !contentType.contains("+json");
  }

  private void appendLines(PicoClient client, LineReader lines) {
    List<Record> pending = new ArrayList<>(batch);
    long pendingBytes = 0;
    for (Optional<byte[]> line = lines.next(); line.isPresent(); line = lines.next()) {
      if (pending.size() == batch || pendingBytes >= MAX_BATCH_BYTES) {
        send(client, pending, false);
        pending = new ArrayList<>(batch);
        pendingBytes = 0;
      }
      pending.add(Record.of(line.get()));
      pendingBytes += line.get().length;
    }
    if (!pending.isEmpty()) {
      send(client, pending, close);
    } else if (close) {
      AppendResult sealed = client.close(stream());
      nextSeq = sealed.nextSeq();
    }
  }

  private void send(PicoClient client, List<Record> batchRecords, boolean sealAfter) {
    AppendOptions options = AppendOptions.defaults().close(sealAfter);
    if (producerId != null) {
      options = options.producer(ProducerId.of(producerId), producerEpoch, producerSeq + requests);
    }
    if (retryBudget.isPresent()) {
      options = options.retryUnavailable(retryBudget.get());
    }
    AppendResult result;
    try {
      result = client.append(stream(), batchRecords, options);
    } catch (ServiceUnavailableException e) {
      throw new Failure(ExitCode.UNAVAILABLE, unavailable(e, batchRecords.size()));
    }
    requests++;
    records += batchRecords.size();
    if (result.duplicate()) {
      duplicates++;
    }
    nextSeq = result.nextSeq();
  }

  /** The server's word, what was appended before, and what to do about the failed request. */
  private String unavailable(ServiceUnavailableException e, int failedRecords) {
    StringBuilder message = new StringBuilder(CommandFailures.unavailable(e));
    if (records > 0) {
      message.append(
          String.format(
              Locale.ROOT,
              "; %d record%s appended before it (next seq %d)",
              records,
              records == 1 ? "" : "s",
              nextSeq));
    }
    message.append(
        String.format(
            Locale.ROOT,
            "; the request of %d record%s was not acknowledged",
            failedRecords,
            failedRecords == 1 ? "" : "s"));
    if (retryBudget.isEmpty() && producerId == null) {
      message.append(" (--retry resends it)");
    }
    return message.toString();
  }

  private void report() {
    var err = spec.commandLine().getErr();
    if (records == 0) {
      err.printf(
          java.util.Locale.ROOT,
          "pico: nothing to append (standard input was empty)%s%n",
          close ? "; stream sealed" : "");
    } else {
      err.printf(
          java.util.Locale.ROOT,
          "pico: appended %d record%s to %s in %d request%s, next seq %d%s%s%n",
          records,
          records == 1 ? "" : "s",
          stream(),
          requests,
          requests == 1 ? "" : "s",
          nextSeq,
          duplicates == 0 ? "" : " (" + duplicates + " already appended by this producer)",
          close ? "; stream sealed" : "");
    }
    err.flush();
  }

  private static byte[] readAll(InputStream in) {
    try {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read standard input", e);
    }
  }
}
