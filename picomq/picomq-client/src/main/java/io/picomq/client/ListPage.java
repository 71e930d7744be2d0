package io.picomq.client;

import java.util.List;

/**
 * One page of {@link PicoClient#list}.
 *
 * @param streams the streams of this page, in name order
 * @param hasMore whether more streams follow: ask again with {@link ListRequest#startAfter} set to
 *     the last name of this page
 */
public record ListPage(List<StreamInfo> streams, boolean hasMore) {

  public ListPage {
    streams = List.copyOf(streams);
  }
}
