package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * A record found by {@link WriteAheadLog#recover()}.
 *
 * @param offset the WAL offset the record was appended at
 * @param body the bytes that were appended; owned by the receiver, who releases it (see {@link
 *     Recovery#release()})
 */
public record RecoveredRecord(long offset, ByteBuf body) {
  public RecoveredRecord {
    Objects.requireNonNull(body, "body");
  }
}
