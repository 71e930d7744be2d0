package io.picomq.cli.client;

import io.picomq.client.AppendResult;
import io.picomq.client.PicoClient;
import picocli.CommandLine.Command;

/** {@code pico close STREAM}: seals a stream. */
@Command(
    name = "close",
    mixinStandardHelpOptions = true,
    header = "Seal a stream.",
    description = {
      "A sealed stream takes no more appends, and readers following it finish.",
      "Sealing a sealed stream succeeds."
    })
public final class CloseCommand extends StreamCommand {

  @Override
  int runOnStream(PicoClient client) {
    AppendResult sealed = client.close(stream());
    spec.commandLine()
        .getErr()
        .printf(java.util.Locale.ROOT, "pico: sealed %s at seq %d%n", stream(), sealed.nextSeq());
    return 0;
  }
}
