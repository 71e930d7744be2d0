package io.picomq.cli.client;

import io.picomq.client.PicoClient;
import io.picomq.client.StreamInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pico head STREAM}: prints what the server knows about a stream. */
@Command(
    name = "head",
    mixinStandardHelpOptions = true,
    header = "Print what the server knows about a stream.",
    description = {
      "Prints the content type, first and next seq, whether it is sealed, and its",
      "expiry. Exit 3 if the stream does not exist."
    })
public final class HeadCommand extends StreamCommand {

  @Option(names = "--json", description = "Print one JSON object instead of lines.")
  boolean json;

  @Override
  int runOnStream(PicoClient client) {
    StreamInfo info = client.head(stream());
    try (Output out = Output.stdout()) {
      if (json) {
        StreamInfoPrinter.json(out, info);
      } else {
        StreamInfoPrinter.details(out, info);
      }
    }
    return 0;
  }
}
