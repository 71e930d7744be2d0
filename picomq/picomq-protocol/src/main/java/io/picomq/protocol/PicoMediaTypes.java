package io.picomq.protocol;

/** The media types of Pico batches. */
public final class PicoMediaTypes {

  private PicoMediaTypes() {}

  /**
   * A JSON batch: {@code {"records":[{"body":"...","headers":{...}}]}}, with {@code body_b64}
   * instead of {@code body} for a body that is not UTF-8 text.
   */
  public static final String BATCH_JSON = "application/vnd.picomq.batch+json";

  /** A binary batch: {@link AppendBatch} in an append, {@link ReadBatch} in a read. */
  public static final String BATCH_BINARY = "application/vnd.picomq.batch";
}
