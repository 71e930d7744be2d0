package io.picomq.node;

import java.util.Optional;

/** Access settings for tests. */
final class AccessTestSupport {
  private AccessTestSupport() {}

  /** Access control on, with {@code root} as the root token. */
  static AccessSettings on(String root) {
    return new AccessSettings(true, Optional.of(new Secret(root)), false);
  }
}
