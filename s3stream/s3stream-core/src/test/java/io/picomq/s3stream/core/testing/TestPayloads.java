package io.picomq.s3stream.core.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Payloads that say where they belong, so a reader can check that what it got back is exactly the
 * batch appended at that offset: {@code "s{stream}:{base}:{count}:"} followed by filler.
 */
public final class TestPayloads {

  private TestPayloads() {}

  /** A payload naming the batch, padded to {@code sizeBytes} (at least the name). */
  public static ByteBuf of(long streamId, long baseOffset, int count, int sizeBytes) {
    byte[] name = name(streamId, baseOffset, count).getBytes(StandardCharsets.US_ASCII);
    byte[] bytes = new byte[Math.max(sizeBytes, name.length)];
    System.arraycopy(name, 0, bytes, 0, name.length);
    for (int i = name.length; i < bytes.length; i++) {
      bytes[i] = (byte) ('a' + (baseOffset + i) % 26);
    }
    return Unpooled.wrappedBuffer(bytes);
  }

  /** The name a payload of this batch starts with. */
  public static String name(long streamId, long baseOffset, int count) {
    return "s" + streamId + ":" + baseOffset + ":" + count + ":";
  }

  /** Whether {@code payload} is the one {@link #of} made for this batch and size. */
  public static boolean matches(
      ByteBuf payload, long streamId, long baseOffset, int count, int sizeBytes) {
    ByteBuf expected = of(streamId, baseOffset, count, sizeBytes);
    try {
      return expected.equals(payload);
    } finally {
      expected.release();
    }
  }

  /** The batches of a fetch as (base, count, name) descriptions, and closes it. */
  public static List<String> describe(FetchResult result) {
    try (result) {
      List<String> out = new ArrayList<>();
      for (FetchedBatch b : result.batches()) {
        String text = b.payload().toString(StandardCharsets.US_ASCII);
        int cut = text.indexOf(':', text.indexOf(':', text.indexOf(':') + 1) + 1);
        out.add(
            b.baseOffset() + "+" + b.count() + "=" + (cut < 0 ? text : text.substring(0, cut + 1)));
      }
      return out;
    }
  }
}
