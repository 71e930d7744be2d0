package io.picomq.s3stream.walobject;

import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.WalRecord;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a WAL object held: its header, every data record that passed its checks, in object order,
 * and what stopped the reading early if something did.
 *
 * @param header the object's header
 * @param records data records up to the first damaged one; each body is a retained slice that the
 *     receiver releases (see {@link #release()})
 * @param stoppedBy the check that failed on the first damaged record, or empty if every record up
 *     to the header's body length was sound
 */
public record WalObjectContents(
    WalObjectHeader header,
    List<WalRecord.Data> records,
    Optional<CorruptDataException> stoppedBy) {

  public WalObjectContents {
    Objects.requireNonNull(header, "header");
    Objects.requireNonNull(stoppedBy, "stoppedBy");
    records = List.copyOf(records);
  }

  /** True if every record of the object was read. */
  public boolean complete() {
    return stoppedBy.isEmpty();
  }

  /** Releases every record body once. */
  public void release() {
    records.forEach(record -> record.body().release());
  }
}
