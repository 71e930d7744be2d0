package io.picomq.s3stream.core.read;

import java.util.HashSet;
import java.util.Set;

/**
 * Knobs of the {@link StorageReader}.
 *
 * @param objectsPerLookup how many objects one catalog lookup asks for, {@code >= 1}
 * @param openObjects how many opened objects (their decoded index) are kept, {@code >= 1}
 * @param initialReadaheadBytes the first readahead window of a reader found to be sequential,
 *     {@code >= 0}; 0 turns readahead off
 * @param maxReadaheadBytes the window doubles at each readahead up to this; {@code >=
 *     initialReadaheadBytes}. The reader also caps it at a quarter of the block cache, so that data
 *     read ahead (at most one and a half windows) never crowds out what readers are reading now
 * @param sequentialReaders how many readers' positions are remembered to recognize sequential
 *     reading, {@code >= 1}
 */
public record StorageReaderConfig(
    int objectsPerLookup,
    int openObjects,
    long initialReadaheadBytes,
    long maxReadaheadBytes,
    int sequentialReaders) {

  public static final StorageReaderConfig DEFAULT =
      new StorageReaderConfig(16, 1024, 1L << 20, 32L << 20, 1024);

  public StorageReaderConfig {
    if (objectsPerLookup < 1 || openObjects < 1 || sequentialReaders < 1) {
      throw new IllegalArgumentException(
          "objectsPerLookup, openObjects and sequentialReaders must be >= 1: "
              + objectsPerLookup
              + ", "
              + openObjects
              + ", "
              + sequentialReaders);
    }
    if (initialReadaheadBytes < 0 || maxReadaheadBytes < initialReadaheadBytes) {
      throw new IllegalArgumentException(
          "need 0 <= initialReadaheadBytes <= maxReadaheadBytes: "
              + initialReadaheadBytes
              + ", "
              + maxReadaheadBytes);
    }
  }

  public static Builder builder() {
    return new Builder(DEFAULT);
  }

  /** A builder starting from these values; each may still be set once, to derive a variant. */
  public Builder newBuilder() {
    return new Builder(this);
  }

  /** Builds a config; setting a value twice is refused, unset values keep their defaults. */
  public static final class Builder {
    private final Set<String> set = new HashSet<>();
    private int objectsPerLookup;
    private int openObjects;
    private long initialReadaheadBytes;
    private long maxReadaheadBytes;
    private int sequentialReaders;

    private Builder(StorageReaderConfig from) {
      objectsPerLookup = from.objectsPerLookup;
      openObjects = from.openObjects;
      initialReadaheadBytes = from.initialReadaheadBytes;
      maxReadaheadBytes = from.maxReadaheadBytes;
      sequentialReaders = from.sequentialReaders;
    }

    public Builder objectsPerLookup(int value) {
      once("objectsPerLookup");
      objectsPerLookup = value;
      return this;
    }

    public Builder openObjects(int value) {
      once("openObjects");
      openObjects = value;
      return this;
    }

    public Builder initialReadaheadBytes(long value) {
      once("initialReadaheadBytes");
      initialReadaheadBytes = value;
      return this;
    }

    public Builder maxReadaheadBytes(long value) {
      once("maxReadaheadBytes");
      maxReadaheadBytes = value;
      return this;
    }

    public Builder sequentialReaders(int value) {
      once("sequentialReaders");
      sequentialReaders = value;
      return this;
    }

    /**
     * @throws IllegalArgumentException if the values do not make a valid config
     */
    public StorageReaderConfig build() {
      return new StorageReaderConfig(
          objectsPerLookup,
          openObjects,
          initialReadaheadBytes,
          maxReadaheadBytes,
          sequentialReaders);
    }

    private void once(String name) {
      if (!set.add(name)) {
        throw new IllegalStateException(name + " is already set");
      }
    }
  }
}
