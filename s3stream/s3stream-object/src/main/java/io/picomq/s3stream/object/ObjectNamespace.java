package io.picomq.s3stream.object;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * Where data objects live in the bucket: {@code {prefix}/{namespace}/{objectId}}.
 *
 * <p>The prefix is the object id written as lowercase hex, left-padded with zeros to at least 8
 * digits, then reversed. Consecutive ids therefore differ in the first character of their keys,
 * which spreads them over S3's key-range partitions instead of piling them onto one. Worked
 * examples (pinned by {@code upstream/keys/object_keys.json}):
 *
 * <pre>
 *   0                   -> "00000000/DEFAULT/0"
 *   1          (0x1)    -> "10000000/DEFAULT/1"          "00000001" reversed
 *   255        (0xff)   -> "ff000000/DEFAULT/255"
 *   123456789  (0x75bcd15) -> "51dcb570/DEFAULT/123456789"
 *   Long.MAX_VALUE      -> "fffffffffffffff7/DEFAULT/9223372036854775807"  16 digits, no padding
 * </pre>
 *
 * @param name the namespace segment of every key, e.g. {@code DEFAULT}; non-empty, without {@code
 *     /}
 */
public record ObjectNamespace(String name) {

  /** The namespace the upstream uses unless configured otherwise. */
  public static final ObjectNamespace DEFAULT = new ObjectNamespace("DEFAULT");

  private static final int MIN_PREFIX_DIGITS = 8;

  public ObjectNamespace {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty() || name.indexOf('/') >= 0) {
      throw new IllegalArgumentException("namespace must be non-empty and without '/': " + name);
    }
  }

  /**
   * The key of the data object {@code objectId}.
   *
   * @throws IllegalArgumentException if {@code objectId} is negative (ids are allocated from 0)
   */
  public String key(long objectId) {
    if (objectId < 0) {
      throw new IllegalArgumentException("object id must be >= 0: " + objectId);
    }
    return prefix(objectId) + "/" + name + "/" + objectId;
  }

  /**
   * The object id a key of this namespace names, or empty for any other key (another namespace, a
   * WAL object, a foreign file met while listing a bucket).
   */
  public OptionalLong parseObjectId(String key) {
    int first = key.indexOf('/');
    int last = key.lastIndexOf('/');
    if (first < 0 || last != first + name.length() + 1 || !key.startsWith(name, first + 1)) {
      return OptionalLong.empty();
    }
    String digits = key.substring(last + 1);
    if (digits.isEmpty()
        || digits.length() > 19
        || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return OptionalLong.empty();
    }
    long objectId;
    try {
      objectId = Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
    // Round-tripping rejects leading zeros and a prefix that does not belong to the id.
    return key.equals(key(objectId)) ? OptionalLong.of(objectId) : OptionalLong.empty();
  }

  private static String prefix(long objectId) {
    String hex = Long.toHexString(objectId);
    StringBuilder padded = new StringBuilder(Math.max(MIN_PREFIX_DIGITS, hex.length()));
    for (int i = hex.length(); i < MIN_PREFIX_DIGITS; i++) {
      padded.append('0');
    }
    return padded.append(hex).reverse().toString();
  }
}
