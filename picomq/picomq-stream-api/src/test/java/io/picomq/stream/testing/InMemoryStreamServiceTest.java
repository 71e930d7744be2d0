package io.picomq.stream.testing;

import io.picomq.stream.StreamService;

class InMemoryStreamServiceTest extends StreamServiceContract {

  @Override
  protected StreamService newService(MutableClock clock) {
    return new InMemoryStreamService(clock);
  }
}
