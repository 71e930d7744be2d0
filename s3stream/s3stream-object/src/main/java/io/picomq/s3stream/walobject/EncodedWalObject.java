package io.picomq.s3stream.walobject;

import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Objects;

/**
 * A WAL object ready to PUT.
 *
 * @param header the header written at the start of {@link #bytes}
 * @param bytes the whole object; owned by the receiver, who releases it after the PUT (it holds
 *     retained slices of the record bodies, not copies)
 * @param records where each record landed, in the order given to the encoder
 * @param endOffset the object's end in WAL offset space: the start of the next object and the end
 *     written in its v1 key
 */
public record EncodedWalObject(
    WalObjectHeader.V1 header, ByteBuf bytes, List<RecordPosition> records, long endOffset) {

  public EncodedWalObject {
    Objects.requireNonNull(header, "header");
    Objects.requireNonNull(bytes, "bytes");
    records = List.copyOf(records);
  }
}
