package io.picomq.cli.client;

import io.picomq.cli.ExitCode;
import io.picomq.cli.Failure;
import io.picomq.client.PicoClient;
import io.picomq.client.Protocol;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pico trim STREAM --seq N}: drops the records below a seq (Pico protocol only). */
@Command(
    name = "trim",
    mixinStandardHelpOptions = true,
    header = "Drop a stream's records below a seq (Pico protocol only).",
    description = {"Under --protocol ds this exits 2: Durable Streams cannot trim."})
public final class TrimCommand extends StreamCommand {

  @Option(
      names = "--seq",
      required = true,
      paramLabel = "N",
      description = "The first seq to keep.")
  long seq;

  @Override
  int runOnStream(PicoClient client) {
    if (protocol() == Protocol.DURABLE_STREAMS) {
      throw new Failure(
          ExitCode.USAGE,
          "trim is Pico-only: the Durable Streams protocol cannot trim a stream (--protocol ds)");
    }
    if (seq < 0) {
      throw new IllegalArgumentException("--seq must not be negative");
    }
    client.trim(stream(), seq);
    spec.commandLine()
        .getErr()
        .printf(java.util.Locale.ROOT, "pico: trimmed %s below seq %d%n", stream(), seq);
    return 0;
  }
}
