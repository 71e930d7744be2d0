package io.picomq.protocol;

/**
 * Bytes that are not a valid encoding: truncated, of an unknown version, or internally
 * inconsistent. The {@link #problem} says which, {@link #offset} where.
 */
public final class DecodeException extends Exception {

  private static final long serialVersionUID = 1L;

  /** What is wrong with the input. */
  public enum Problem {
    /** The input ends before the structure does (a length or count promises more bytes). */
    TRUNCATED,
    /** The version byte is not one this codec knows. */
    UNSUPPORTED_VERSION,
    /** A header name or value is not well-formed UTF-8. */
    MALFORMED_UTF8,
    /** A header name is empty. */
    EMPTY_HEADER_NAME,
    /** Header names are not in strictly ascending order (unsorted, or a name repeats). */
    HEADERS_OUT_OF_ORDER,
    /** A seq does not fit a signed 64-bit integer. */
    SEQ_OUT_OF_RANGE,
    /** Bytes follow the last record of a batch. */
    TRAILING_BYTES
  }

  private final Problem problem;
  private final long offset;

  public DecodeException(Problem problem, long offset, String detail) {
    super(detail + " (" + problem + " at byte " + offset + ")");
    this.problem = problem;
    this.offset = offset;
  }

  public Problem problem() {
    return problem;
  }

  /** The position in the input where decoding failed. */
  public long offset() {
    return offset;
  }
}
