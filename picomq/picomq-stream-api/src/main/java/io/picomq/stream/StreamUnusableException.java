package io.picomq.stream;

/**
 * A stream whose stored state cannot be used: its registry entry does not decode, or holds values
 * no node writes. Broken storage or a bug, never the caller's fault; the stream answers this to
 * every call but {@link StreamService#delete}, which removes it. The frontends answer {@code 409
 * stream_unusable} with the reason, and the node reports it in its log and admin API.
 */
public final class StreamUnusableException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String name;
  private final String reason;

  public StreamUnusableException(String name, String reason, Throwable cause) {
    super("the stored state of stream " + name + " is unusable: " + reason, cause);
    this.name = name;
    this.reason = reason;
  }

  public String name() {
    return name;
  }

  /** What is wrong with the stored state, in words. */
  public String reason() {
    return reason;
  }
}
