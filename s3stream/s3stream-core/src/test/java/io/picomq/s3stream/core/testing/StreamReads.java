package io.picomq.s3stream.core.testing;

import io.picomq.s3stream.api.FetchResult;
import io.picomq.s3stream.api.FetchedBatch;
import io.picomq.s3stream.api.ReadOptions;
import io.picomq.s3stream.api.Stream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Reading a whole range of a stream back, as a reader would: fetch, continue from the end. */
public final class StreamReads {

  private StreamReads() {}

  /** A batch as read back: its offsets and its payload as text. */
  public record ReadBatch(long baseOffset, int count, String payload) {
    public long nextOffset() {
      return baseOffset + count;
    }
  }

  /** The id a test payload starts with (up to its {@code '|'}). */
  public static String readBatchId(ReadBatch batch) {
    int bar = batch.payload().indexOf('|');
    return bar < 0 ? batch.payload() : batch.payload().substring(0, bar);
  }

  /**
   * Every batch of {@code [from, to)}, fetching {@code maxBytes} at a time; fails if a fetch makes
   * no progress.
   */
  public static List<ReadBatch> readAll(Stream stream, long from, long to, int maxBytes)
      throws Exception {
    List<ReadBatch> out = new ArrayList<>();
    long next = from;
    while (next < to) {
      FetchResult result =
          stream.fetch(next, to, maxBytes, ReadOptions.DEFAULT).get(60, TimeUnit.SECONDS);
      try (result) {
        if (result.batches().isEmpty()) {
          throw new AssertionError(
              "fetch of stream " + stream.streamId() + " at " + next + " is empty");
        }
        for (FetchedBatch b : result.batches()) {
          if (b.nextOffset() <= next) {
            continue;
          }
          out.add(
              new ReadBatch(
                  b.baseOffset(), b.count(), b.payload().toString(StandardCharsets.ISO_8859_1)));
          next = b.nextOffset();
        }
      }
    }
    return out;
  }
}
