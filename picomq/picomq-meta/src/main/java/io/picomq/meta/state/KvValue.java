package io.picomq.meta.state;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable value in the metadata KV: opaque bytes, at most {@link #MAX_BYTES}.
 *
 * <p>Bytes rather than strings because the name registry stores structured entries (stream id,
 * content type, expiry, producer state) in its own compact encoding; {@link #ofUtf8} covers callers
 * that only need text. The array is copied on the way in and out, so equal bytes mean equal values.
 */
public final class KvValue {

  /** Upper bound on a value: keeps one row of 256 commands, and the snapshot, bounded. */
  public static final int MAX_BYTES = 1 << 20;

  private final byte[] bytes;

  private KvValue(byte[] bytes) {
    if (bytes.length > MAX_BYTES) {
      throw new IllegalArgumentException(
          "KV value of " + bytes.length + " bytes exceeds " + MAX_BYTES);
    }
    this.bytes = bytes;
  }

  public static KvValue of(byte[] bytes) {
    return new KvValue(bytes.clone());
  }

  public static KvValue ofUtf8(String text) {
    return new KvValue(text.getBytes(StandardCharsets.UTF_8));
  }

  public byte[] toByteArray() {
    return bytes.clone();
  }

  /** The value read as UTF-8 text (malformed sequences become U+FFFD). */
  public String toUtf8() {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  public int sizeBytes() {
    return bytes.length;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof KvValue value && Arrays.equals(bytes, value.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    String hex = HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 32));
    return "KvValue[" + bytes.length + " bytes: " + hex + (bytes.length > 32 ? "...]" : "]");
  }
}
