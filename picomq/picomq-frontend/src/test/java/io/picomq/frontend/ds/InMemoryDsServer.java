package io.picomq.frontend.ds;

import io.picomq.frontend.Frontend;
import io.picomq.frontend.FrontendConfig;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.stream.testing.InMemoryStreamService;
import java.time.Duration;
import java.time.InstantSource;

/**
 * A Durable Streams listener over the in-memory stream service, for running the official
 * conformance suite by hand: {@code java ... InMemoryDsServer [port] [longPollMillis]} prints the
 * base URL and serves until killed.
 */
public final class InMemoryDsServer {

  private InMemoryDsServer() {}

  /** Starts a frontend on {@code port} (0 for any) with the given long-poll timeout. */
  public static Frontend start(int port, Duration longPollTimeout) throws InterruptedException {
    InstantSource clock = InstantSource.system();
    return Frontend.start(
        FrontendConfig.builder()
            .port(port)
            .protocol(ListenerProtocol.DS)
            .longPollTimeout(longPollTimeout)
            .build(),
        new InMemoryStreamService(clock),
        clock);
  }

  public static void main(String[] args) throws InterruptedException {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
    long longPollMillis = args.length > 1 ? Long.parseLong(args[1]) : 3000;
    Frontend frontend = start(port, Duration.ofMillis(longPollMillis));
    System.out.println("http://127.0.0.1:" + frontend.address().getPort());
    System.out.flush();
    Thread.currentThread().join();
  }
}
