package io.picomq.meta.codec;

/**
 * Bytes that are not a valid encoding. Checked, because the caller must decide what a corrupt log
 * row means (the metadata sink stops; skipping it would fork this node from the others).
 */
public final class MetadataDecodeException extends Exception {

  /** What is wrong with the bytes. */
  public enum Kind {
    /** The bytes end before the encoding does. */
    TRUNCATED,
    /** Bytes remain after a complete encoding. */
    TRAILING_BYTES,
    /** The type tag names no known command or object. */
    UNKNOWN_TYPE,
    /** The type is known but not at this version. */
    UNKNOWN_VERSION,
    /** A field holds a value its type does not allow (negative count, bad UTF-8, bad range...). */
    INVALID_FIELD,
    /** The checksum of a snapshot does not match its bytes. */
    CHECKSUM_MISMATCH
  }

  private final Kind kind;

  MetadataDecodeException(Kind kind, String message) {
    super(kind + ": " + message);
    this.kind = kind;
  }

  MetadataDecodeException(Kind kind, String message, Throwable cause) {
    super(kind + ": " + message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
