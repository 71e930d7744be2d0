package io.picomq.s3stream.core.upload;

import io.picomq.s3stream.object.ObjectNamespace;
import java.time.Duration;
import java.util.Objects;

/**
 * How uploads are cut and named.
 *
 * @param namespace where data objects are keyed
 * @param streamSplitSizeBytes a stream with at least this many bytes in one upload gets a stream
 *     object of its own
 * @param objectBlockSizeBytes data objects cut a data block after this many payload bytes
 * @param preparedObjectTtl how long prepared object ids stay reserved if never committed
 */
public record UploadSettings(
    ObjectNamespace namespace,
    long streamSplitSizeBytes,
    int objectBlockSizeBytes,
    Duration preparedObjectTtl) {

  /** Ids are prepared well ahead of the slowest upload a healthy store allows. */
  public static final Duration DEFAULT_PREPARED_OBJECT_TTL = Duration.ofMinutes(60);

  public UploadSettings {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(preparedObjectTtl, "preparedObjectTtl");
    if (streamSplitSizeBytes <= 0 || objectBlockSizeBytes <= 0) {
      throw new IllegalArgumentException(
          "split and block sizes must be > 0: "
              + streamSplitSizeBytes
              + ", "
              + objectBlockSizeBytes);
    }
  }
}
