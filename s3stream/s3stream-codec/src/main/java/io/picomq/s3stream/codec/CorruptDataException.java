package io.picomq.s3stream.codec;

import java.util.Objects;

/**
 * Bytes that do not decode as the format they claim to be. Thrown by every decoder of the engine's
 * formats instead of letting a buffer bounds exception or a garbage value escape; the {@link
 * #reason()} says which check failed so recovery can tell a torn tail from a foreign object.
 */
public final class CorruptDataException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Which check rejected the bytes. */
  public enum Reason {
    /** Fewer bytes than the fixed header or than the length the header announces. */
    TRUNCATED,
    /** The magic number is not one this format defines. */
    UNKNOWN_MAGIC,
    /** The format version is not one this code reads. */
    UNKNOWN_VERSION,
    /** A length or offset field is out of its allowed range. */
    BAD_LENGTH,
    /** The checksum over a header does not match its bytes. */
    HEADER_CRC_MISMATCH,
    /** The checksum over a body does not match its bytes. */
    BODY_CRC_MISMATCH,
    /** The bytes are well-formed but contradict what the caller knows (e.g. an offset). */
    INCONSISTENT
  }

  private final Reason reason;

  public CorruptDataException(Reason reason, String message) {
    super(Objects.requireNonNull(reason, "reason") + ": " + message);
    this.reason = reason;
  }

  /** Which check rejected the bytes. */
  public Reason reason() {
    return reason;
  }
}
