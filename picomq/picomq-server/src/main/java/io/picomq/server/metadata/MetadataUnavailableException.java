package io.picomq.server.metadata;

/** The metadata plane refused a write or could not be reached; the message says why. */
public final class MetadataUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MetadataUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
