package io.picomq.s3stream.core.stream;

import io.picomq.s3stream.api.FastReadMissException;
import io.picomq.s3stream.api.FetchResult;
import java.util.concurrent.CompletableFuture;

/** Reads committed data of a stream: what the log cache no longer (or never) held. */
@FunctionalInterface
public interface CommittedReader {

  /**
   * Batches of {@code streamId} from the one holding {@code startOffset}, contiguous, starting
   * below {@code endOffset}, until about {@code maxBytes}. It may return fewer than the range holds
   * (the caller continues from the last batch's end), but at least one batch when the range is
   * committed.
   *
   * @param fastRead fail with {@link FastReadMissException} rather than read object storage
   * @return batches the caller closes
   */
  CompletableFuture<FetchResult> read(
      long streamId, long startOffset, long endOffset, int maxBytes, boolean fastRead);
}
