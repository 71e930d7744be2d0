package io.picomq.server.stream.testing;

import io.picomq.server.stream.StreamService;

class InMemoryStreamServiceTest extends StreamServiceContract {

  @Override
  protected StreamService newService(MutableClock clock) {
    return new InMemoryStreamService(clock);
  }
}
