package io.picomq.s3stream.core.testing;

import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.OrphanedStreams;
import io.picomq.s3stream.api.StreamManager;
import io.picomq.s3stream.api.StreamMetadata;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The metadata plane as seen by a process that may crash ({@link CrashSwitch}): after the crash
 * every call fails and answers in flight are lost (a commit may have applied without the process
 * knowing).
 */
public final class CrashingMetadata implements StreamManager, ObjectManager {

  private final InMemoryMetadata.Node node;
  private final CrashSwitch crash;

  public CrashingMetadata(InMemoryMetadata.Node node, CrashSwitch crash) {
    this.node = node;
    this.crash = crash;
  }

  @Override
  public CompletableFuture<List<StreamMetadata>> openingStreams() {
    return call(CrashSwitch.Site.STREAM_OP, node::openingStreams);
  }

  @Override
  public CompletableFuture<StreamMetadata> openStream(long streamId) {
    return call(CrashSwitch.Site.STREAM_OP, () -> node.openStream(streamId));
  }

  @Override
  public CompletableFuture<Void> trimStream(long streamId, long epoch, long newStartOffset) {
    return call(CrashSwitch.Site.STREAM_OP, () -> node.trimStream(streamId, epoch, newStartOffset));
  }

  @Override
  public CompletableFuture<Void> closeStream(long streamId, long epoch) {
    return call(CrashSwitch.Site.STREAM_OP, () -> node.closeStream(streamId, epoch));
  }

  @Override
  public CompletableFuture<Void> deleteStream(long streamId, long epoch) {
    return call(CrashSwitch.Site.STREAM_OP, () -> node.deleteStream(streamId, epoch));
  }

  @Override
  public CompletableFuture<Long> prepareObjects(int count, Duration ttl) {
    return call(CrashSwitch.Site.PREPARE, () -> node.prepareObjects(count, ttl));
  }

  @Override
  public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
    return call(CrashSwitch.Site.COMMIT, () -> node.commitStreamSetObject(request));
  }

  @Override
  public CompletableFuture<Void> compactStreamObject(CompactStreamObjectRequest request) {
    return call(CrashSwitch.Site.COMMIT, () -> node.compactStreamObject(request));
  }

  @Override
  public CompletableFuture<List<ObjectMetadata>> getObjects(
      long streamId, long startOffset, long endOffset, int limit) {
    return call(
        CrashSwitch.Site.STREAM_OP, () -> node.getObjects(streamId, startOffset, endOffset, limit));
  }

  @Override
  public CompletableFuture<List<ObjectMetadata>> getStreamSetObjects() {
    return call(CrashSwitch.Site.STREAM_OP, node::getStreamSetObjects);
  }

  /** The streams {@code failedNodeId} left open, as this (crashable) taker sees them. */
  public OrphanedStreams orphanedStreams(int failedNodeId) {
    OrphanedStreams orphans = node.orphanedStreams(failedNodeId);
    return new OrphanedStreams() {
      @Override
      public CompletableFuture<List<StreamMetadata>> streams() {
        return call(CrashSwitch.Site.STREAM_OP, orphans::streams);
      }

      @Override
      public CompletableFuture<Void> closeStream(long streamId, long epoch) {
        return call(CrashSwitch.Site.STREAM_OP, () -> orphans.closeStream(streamId, epoch));
      }
    };
  }

  private <T> CompletableFuture<T> call(CrashSwitch.Site site, Supplier<CompletableFuture<T>> op) {
    int ticket = crash.before(site);
    if (ticket < 0) {
      return CompletableFuture.failedFuture(CrashSwitch.crashedError(site));
    }
    CompletableFuture<T> answer = new CompletableFuture<>();
    CompletableFuture<T> called;
    try {
      called = op.get();
    } catch (RuntimeException e) {
      called = CompletableFuture.failedFuture(e);
    }
    called.whenComplete(
        (value, error) -> {
          if (crash.after(site, ticket)) {
            answer.completeExceptionally(CrashSwitch.crashedError(site));
          } else if (error != null) {
            answer.completeExceptionally(error);
          } else {
            answer.complete(value);
          }
        });
    return answer;
  }
}
