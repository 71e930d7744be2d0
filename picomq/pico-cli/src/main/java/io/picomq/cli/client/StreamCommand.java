package io.picomq.cli.client;

import io.picomq.cli.ExitCode;
import io.picomq.cli.Failure;
import io.picomq.client.PicoClient;
import io.picomq.client.StreamNotFoundException;
import picocli.CommandLine.Parameters;

/**
 * A client verb on one stream. A missing stream becomes one line naming it and exit code {@link
 * ExitCode#NOT_FOUND}, whatever the server's message says.
 */
abstract class StreamCommand extends ClientCommand {

  @Parameters(
      index = "0",
      paramLabel = "STREAM",
      description = "The stream's name, e.g. logs/app (a leading / is optional).")
  String streamArgument;

  /** Runs the verb on {@link #stream()}. */
  abstract int runOnStream(PicoClient client) throws Exception;

  @Override
  final int run(PicoClient client) throws Exception {
    try {
      return runOnStream(client);
    } catch (StreamNotFoundException e) {
      throw new Failure(
          ExitCode.NOT_FOUND,
          "no stream named '"
              + stream()
              + "' at "
              + client.endpoint()
              + " ("
              + e.errorCode()
              + ")");
    }
  }

  /** The stream's name as the user wrote it; the SDK adds the leading slash if it is missing. */
  final String stream() {
    if (streamArgument.isEmpty() || streamArgument.equals("/")) {
      throw new IllegalArgumentException("a stream name must not be empty");
    }
    return streamArgument;
  }
}
