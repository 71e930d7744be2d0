package io.picomq.s3stream.core.testing;

import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.CompactStreamObjectRequest;
import io.picomq.s3stream.api.ObjectManager;
import io.picomq.s3stream.api.ObjectMetadata;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** An {@link ObjectManager} that forwards every call: a test overrides the one it steers. */
public class ForwardingObjectManager implements ObjectManager {
  protected final ObjectManager delegate;

  public ForwardingObjectManager(ObjectManager delegate) {
    this.delegate = delegate;
  }

  @Override
  public CompletableFuture<Long> prepareObjects(int count, Duration ttl) {
    return delegate.prepareObjects(count, ttl);
  }

  @Override
  public CompletableFuture<Void> commitStreamSetObject(CommitStreamSetObjectRequest request) {
    return delegate.commitStreamSetObject(request);
  }

  @Override
  public CompletableFuture<Void> compactStreamObject(CompactStreamObjectRequest request) {
    return delegate.compactStreamObject(request);
  }

  @Override
  public CompletableFuture<List<ObjectMetadata>> getObjects(
      long streamId, long startOffset, long endOffset, int limit) {
    return delegate.getObjects(streamId, startOffset, endOffset, limit);
  }

  @Override
  public CompletableFuture<List<ObjectMetadata>> getStreamSetObjects() {
    return delegate.getStreamSetObjects();
  }
}
