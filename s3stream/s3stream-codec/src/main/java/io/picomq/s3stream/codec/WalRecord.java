package io.picomq.s3stream.codec;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/** A decoded WAL record: either data with its body, or padding to skip. */
public sealed interface WalRecord {

  /** The header the record was read from. */
  WalRecordHeader header();

  /**
   * A data record whose body passed its CRC.
   *
   * @param header the record's header ({@link WalRecordType#DATA})
   * @param body the body bytes (normally one encoded record batch); a retained slice of the buffer
   *     it was decoded from, which the receiver releases
   */
  record Data(WalRecordHeader header, ByteBuf body) implements WalRecord {
    public Data {
      Objects.requireNonNull(header, "header");
      Objects.requireNonNull(body, "body");
      if (header.type() != WalRecordType.DATA) {
        throw new IllegalArgumentException("data record with header " + header);
      }
    }
  }

  /**
   * A padding record; its body is not retained and not checked.
   *
   * @param header the record's header ({@link WalRecordType#PADDING})
   */
  record Padding(WalRecordHeader header) implements WalRecord {
    public Padding {
      Objects.requireNonNull(header, "header");
      if (header.type() != WalRecordType.PADDING) {
        throw new IllegalArgumentException("padding record with header " + header);
      }
    }
  }
}
