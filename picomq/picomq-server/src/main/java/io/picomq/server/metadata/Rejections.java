package io.picomq.server.metadata;

import io.picomq.meta.apply.RejectReason;
import io.picomq.s3stream.api.MetadataRejectedException;
import java.util.concurrent.CompletionException;

/** Translates the metadata plane's refusals into the engine's vocabulary. */
final class Rejections {
  private Rejections() {}

  /**
   * The engine's form of {@code failure}: a rejection becomes {@link MetadataRejectedException}.
   */
  static Throwable forEngine(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof MetadataRejection rejection) {
      return new MetadataRejectedException(reason(rejection.reason()), rejection.getMessage());
    }
    return cause;
  }

  static MetadataRejectedException.Reason reason(RejectReason reason) {
    return switch (reason) {
      case UNKNOWN_STREAM -> MetadataRejectedException.Reason.UNKNOWN_STREAM;
      case FENCED_STREAM_EPOCH -> MetadataRejectedException.Reason.FENCED;
      case OFFSET_MISMATCH -> MetadataRejectedException.Reason.OFFSET_MISMATCH;
      case OBJECT_NOT_PREPARED, OBJECT_CONFLICT, OBJECT_STILL_REACHABLE ->
          MetadataRejectedException.Reason.UNKNOWN_OBJECT;
      case NODE_NOT_REGISTERED,
          STALE_NODE_EPOCH,
          NODE_TAKEN_OVER,
          UNKNOWN_NODE,
          NO_NODE_AVAILABLE ->
          MetadataRejectedException.Reason.NODE_FENCED;
      case OPEN_ON_OTHER_NODE, NOT_OWNER, TRANSFER_IN_PROGRESS, TRANSFER_CONFLICT ->
          MetadataRejectedException.Reason.OPEN_ON_OTHER_NODE;
      case STREAM_NOT_CLOSED, NO_PENDING_TRANSFER, KEY_EXISTS ->
          MetadataRejectedException.Reason.STREAM_CLOSED;
    };
  }
}
