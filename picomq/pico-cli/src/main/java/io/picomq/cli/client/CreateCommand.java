package io.picomq.cli.client;

import io.picomq.client.CreateOptions;
import io.picomq.client.PicoClient;
import io.picomq.client.StreamInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pico create STREAM}: creates a stream, or confirms it exists with the same settings. */
@Command(
    name = "create",
    mixinStandardHelpOptions = true,
    header = "Create a stream.",
    description = {
      "Creating a stream that exists with the same content type succeeds; with another",
      "content type it fails (exit 1)."
    })
public final class CreateCommand extends StreamCommand {

  @Option(
      names = "--content-type",
      paramLabel = "TYPE",
      description = "The stream's content type (default application/octet-stream).")
  String contentType;

  @Option(
      names = "--ttl",
      paramLabel = "DURATION",
      description = "Sliding time to live: 3600, 90m, 2h, 7d or PT1H.")
  String ttl;

  @Option(
      names = "--expires-at",
      paramLabel = "TIME",
      description = "Absolute expiry: RFC 3339 (2026-12-31T23:59:59Z) or unix milliseconds.")
  String expiresAt;

  @Option(names = "--closed", description = "Create the stream already sealed.")
  boolean closed;

  @Override
  int runOnStream(PicoClient client) {
    CreateOptions.Builder options = CreateOptions.builder();
    if (contentType != null) {
      options.contentType(contentType);
    }
    if (ttl != null) {
      options.ttl(TimeArguments.duration("--ttl", ttl));
    }
    if (expiresAt != null) {
      options.expiresAt(TimeArguments.instant("--expires-at", expiresAt));
    }
    options.closed(closed);
    StreamInfo info = client.create(stream(), options.build());
    spec.commandLine()
        .getErr()
        .printf(
            java.util.Locale.ROOT,
            "pico: stream %s (%s), next seq %d%s%n",
            info.name(),
            info.contentType(),
            info.nextSeq(),
            info.closed() ? ", sealed" : "");
    return 0;
  }
}
