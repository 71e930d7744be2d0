package io.picomq.s3stream.objectstore;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;

/**
 * The key rules every backend shares, so that code tested against memory behaves the same on S3.
 *
 * <p>A key is a non-empty, well-formed Unicode string of at most {@value #MAX_KEY_BYTES} UTF-8
 * bytes (the S3 limit). Keys are ordered by Unicode code point, which is the order of their UTF-8
 * bytes and the order in which S3 lists them (Java's {@link String#compareTo} differs for
 * characters outside the Basic Multilingual Plane).
 */
public final class ObjectKeys {

  /** The longest key, in UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 1024;

  /** Ascending key order: by code point, equivalently by UTF-8 bytes. */
  public static final Comparator<String> ORDER = ObjectKeys::compare;

  private ObjectKeys() {}

  /**
   * Rejects a key no backend may store.
   *
   * @throws ObjectStoreException of kind {@link ObjectStoreException.Kind#INVALID_ARGUMENT}
   */
  public static void check(String key) {
    if (key.isEmpty()) {
      throw invalid(key, "it is empty");
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < key.length()
          && Character.isLowSurrogate(key.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw invalid(key, "it has an unpaired surrogate at index " + i);
      }
    }
    int sizeBytes = key.getBytes(StandardCharsets.UTF_8).length;
    if (sizeBytes > MAX_KEY_BYTES) {
      throw invalid(key, "it has " + sizeBytes + " UTF-8 bytes, more than " + MAX_KEY_BYTES);
    }
  }

  private static int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  private static ObjectStoreException invalid(String key, String why) {
    String shown =
        key.codePointCount(0, key.length()) > 80
            ? key.substring(0, key.offsetByCodePoints(0, 80)) + "..."
            : key;
    return new ObjectStoreException(
        ObjectStoreException.Kind.INVALID_ARGUMENT, "key '" + shown + "' is invalid: " + why);
  }
}
