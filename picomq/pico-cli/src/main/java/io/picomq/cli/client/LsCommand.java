package io.picomq.cli.client;

import io.picomq.cli.ExitCode;
import io.picomq.cli.Failure;
import io.picomq.client.ListPage;
import io.picomq.client.ListRequest;
import io.picomq.client.PicoClient;
import io.picomq.client.Protocol;
import io.picomq.client.StreamInfo;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pico ls}: lists streams by name (Pico protocol only). */
@Command(
    name = "ls",
    mixinStandardHelpOptions = true,
    header = "List streams (Pico protocol only).",
    description = {
      "Lists streams in name order, one name per line. Durable Streams has no",
      "listing: under --protocol ds this exits 2."
    })
public final class LsCommand extends ClientCommand {
  private static final int PAGE = 1000;

  @Option(names = "--prefix", paramLabel = "PREFIX", description = "Only names starting with this.")
  String prefix = "";

  @Option(
      names = "--limit",
      defaultValue = "0",
      paramLabel = "N",
      description = "At most N streams (default: all).")
  int limit;

  @Option(
      names = {"-l", "--long"},
      description = "A table with content type, seqs and state.")
  boolean longFormat;

  @Option(names = "--json", description = "One JSON object per stream and line.")
  boolean json;

  @Override
  int run(PicoClient client) {
    if (protocol() == Protocol.DURABLE_STREAMS) {
      throw new Failure(
          ExitCode.USAGE,
          "ls is Pico-only: the Durable Streams protocol cannot list streams (--protocol ds)");
    }
    if (limit < 0) {
      throw new IllegalArgumentException("--limit must not be negative");
    }
    List<StreamInfo> streams = new ArrayList<>();
    ListRequest request = ListRequest.prefix(prefix);
    while (true) {
      int want = limit == 0 ? PAGE : Math.min(PAGE, limit - streams.size());
      ListPage page = client.list(request.limit(want));
      streams.addAll(page.streams());
      if (!page.hasMore() || page.streams().isEmpty() || (limit != 0 && streams.size() >= limit)) {
        break;
      }
      request = ListRequest.prefix(prefix).startAfter(page.streams().getLast().name());
    }
    try (Output out = Output.stdout()) {
      if (json) {
        streams.forEach(info -> StreamInfoPrinter.json(out, info));
      } else if (longFormat) {
        StreamInfoPrinter.table(out, streams);
      } else {
        streams.forEach(info -> out.line(info.name()));
      }
    }
    return 0;
  }
}
