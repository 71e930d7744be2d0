package io.picomq.cli.client;

import io.picomq.client.PicoClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pico read STREAM}: prints records from a seq up to the stream's tail, then exits. */
@Command(
    name = "read",
    mixinStandardHelpOptions = true,
    header = "Print a stream's records up to its tail.",
    description = {
      "Prints records from --seq up to the stream's tail, then exits. Formats: lines",
      "(each body and a newline; the default), json (one object per line with seq,",
      "timestamp, headers, and body or body_b64), raw (bodies back to back)."
    })
public final class ReadCommand extends StreamCommand {

  @Option(
      names = "--seq",
      defaultValue = "0",
      paramLabel = "N",
      description = "First seq to print (default ${DEFAULT-VALUE}).")
  long seq;

  @Option(
      names = {"-n", "--count"},
      defaultValue = "0",
      paramLabel = "N",
      description = "Print at most N records (default: all up to the tail).")
  long count;

  @Option(
      names = "--format",
      defaultValue = "lines",
      paramLabel = "lines|json|raw",
      description = "Output format (default ${DEFAULT-VALUE}).")
  RecordFormat format;

  @Override
  int runOnStream(PicoClient client) {
    if (seq < 0 || count < 0) {
      throw new IllegalArgumentException("--seq and --count must not be negative");
    }
    RecordFormat effective = CatchUp.effectiveFormat(format, protocol(), client, stream());
    try (Output out = Output.stdout()) {
      CatchUp.catchUp(client, stream(), seq, count, new RecordWriter(out, effective));
    }
    return 0;
  }
}
