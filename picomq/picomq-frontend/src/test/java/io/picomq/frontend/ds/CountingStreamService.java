package io.picomq.frontend.ds;

import io.picomq.server.stream.AppendOutcome;
import io.picomq.server.stream.AppendRequest;
import io.picomq.server.stream.CreateOutcome;
import io.picomq.server.stream.CreateRequest;
import io.picomq.server.stream.DeleteOutcome;
import io.picomq.server.stream.HeadOutcome;
import io.picomq.server.stream.ListRequest;
import io.picomq.server.stream.ReadOutcome;
import io.picomq.server.stream.ReadRequest;
import io.picomq.server.stream.StreamPage;
import io.picomq.server.stream.StreamService;
import io.picomq.server.stream.TrimOutcome;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** Decorates a real service to count waits that are neither signalled nor cancelled yet. */
final class CountingStreamService implements StreamService {

  private final StreamService delegate;
  private final AtomicInteger pendingWaits = new AtomicInteger();

  CountingStreamService(StreamService delegate) {
    this.delegate = delegate;
  }

  int pendingWaits() {
    return pendingWaits.get();
  }

  @Override
  public CompletableFuture<Void> awaitBeyond(String name, long seq) {
    CompletableFuture<Void> signal = delegate.awaitBeyond(name, seq);
    if (!signal.isDone()) {
      pendingWaits.incrementAndGet();
      signal.whenComplete((ignored, failure) -> pendingWaits.decrementAndGet());
    }
    return signal;
  }

  @Override
  public CompletableFuture<CreateOutcome> create(String name, CreateRequest request) {
    return delegate.create(name, request);
  }

  @Override
  public CompletableFuture<AppendOutcome> append(String name, AppendRequest request) {
    return delegate.append(name, request);
  }

  @Override
  public CompletableFuture<ReadOutcome> read(String name, ReadRequest request) {
    return delegate.read(name, request);
  }

  @Override
  public CompletableFuture<HeadOutcome> head(String name) {
    return delegate.head(name);
  }

  @Override
  public CompletableFuture<DeleteOutcome> delete(String name) {
    return delegate.delete(name);
  }

  @Override
  public CompletableFuture<TrimOutcome> trim(String name, long beforeSeq) {
    return delegate.trim(name, beforeSeq);
  }

  @Override
  public CompletableFuture<StreamPage> list(ListRequest request) {
    return delegate.list(request);
  }
}
