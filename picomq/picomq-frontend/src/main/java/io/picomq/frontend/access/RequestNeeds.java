package io.picomq.frontend.access;

import io.netty.handler.codec.http.HttpRequest;

/** Maps a request head to what it needs: one of these per protocol and one for the admin API. */
@FunctionalInterface
public interface RequestNeeds {

  /**
   * @param path the percent-decoded path
   * @param mayHaveBody whether a body follows (a {@code POST} with {@code Stream-Closed} and a body
   *     appends as well as closes)
   */
  Need need(HttpRequest head, String path, boolean mayHaveBody);
}
