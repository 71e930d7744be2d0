package io.picomq.cli.client;

import io.picomq.client.PicoClient;
import picocli.CommandLine.Command;

/** {@code pico delete STREAM}: deletes a stream and its records. */
@Command(
    name = "delete",
    mixinStandardHelpOptions = true,
    header = "Delete a stream.",
    description = {"Deletes a stream and its records. Exit 3 if it does not exist."})
public final class DeleteCommand extends StreamCommand {

  @Override
  int runOnStream(PicoClient client) {
    client.delete(stream());
    spec.commandLine().getErr().printf(java.util.Locale.ROOT, "pico: deleted %s%n", stream());
    return 0;
  }
}
