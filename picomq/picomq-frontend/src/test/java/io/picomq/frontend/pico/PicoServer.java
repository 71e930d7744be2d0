package io.picomq.frontend.pico;

import io.picomq.frontend.Frontend;
import io.picomq.frontend.FrontendConfig;
import io.picomq.frontend.testing.WaitCountingService;
import io.picomq.stream.testing.InMemoryStreamService;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicInteger;

/** A Pico listener on a free port over the in-memory stream service, as a user starts it. */
final class PicoServer implements AutoCloseable {

  private static final AtomicInteger NAMES = new AtomicInteger();

  final WaitCountingService service;
  final Frontend frontend;
  final URI base;

  private PicoServer(WaitCountingService service, Frontend frontend) {
    this.service = service;
    this.frontend = frontend;
    this.base = URI.create("http://127.0.0.1:" + frontend.address().getPort());
  }

  static PicoServer start(Duration longPollTimeout, Duration sseMaxDuration)
      throws InterruptedException {
    return start(InstantSource.system(), longPollTimeout, sseMaxDuration, 64 << 10);
  }

  static PicoServer start(
      InstantSource clock, Duration longPollTimeout, Duration sseMaxDuration, int maxChunkBytes)
      throws InterruptedException {
    WaitCountingService service = new WaitCountingService(new InMemoryStreamService(clock));
    Frontend frontend =
        Frontend.start(
            FrontendConfig.builder()
                .port(0)
                // The default protocol: a listener speaks Pico unless told otherwise.
                .longPollTimeout(longPollTimeout)
                .sseMaxDuration(sseMaxDuration)
                .maxChunkBytes(maxChunkBytes)
                .ioThreads(2)
                .build(),
            service,
            clock);
    return new PicoServer(service, frontend);
  }

  /** A stream name no other test uses. */
  static String freshName(String hint) {
    return "/t/" + hint + "-" + NAMES.incrementAndGet();
  }

  @Override
  public void close() {
    frontend.close();
  }
}
