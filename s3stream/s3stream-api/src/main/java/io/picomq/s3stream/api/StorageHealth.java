package io.picomq.s3stream.api;

/**
 * Whether the engine's object storage (data bucket and WAL) is answering, as {@link
 * StreamEngine#storageHealth()} reports it. A host uses it for readiness and to name the cause of a
 * failed or stalled engine call.
 */
public sealed interface StorageHealth {

  /** The latest storage calls succeeded, and none is stalled. */
  record Healthy() implements StorageHealth {}

  /**
   * A recent storage call failed (and nothing succeeded since), or a call has been running far
   * longer than storage calls take.
   *
   * @param noSpace the failure was the store running out of space ({@code No space left on device}
   *     on {@code file://}): an operator must free space, retrying soon will not help
   * @param detail what failed, in words
   */
  record Failing(boolean noSpace, String detail) implements StorageHealth {}

  StorageHealth HEALTHY = new Healthy();

  default boolean healthy() {
    return this instanceof Healthy;
  }
}
