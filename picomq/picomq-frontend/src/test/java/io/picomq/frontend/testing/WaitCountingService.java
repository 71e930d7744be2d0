package io.picomq.frontend.testing;

import static org.awaitility.Awaitility.await;

import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateOutcome;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.DeleteOutcome;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.ListQuery;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamPage;
import io.picomq.stream.StreamService;
import io.picomq.stream.TrimOutcome;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real stream service that also counts the waits a frontend registers and cancels, so a test can
 * await "the long-poll is parked" instead of sleeping, and check that abandoned waits are released.
 * Shared by the tests of both protocols.
 */
public final class WaitCountingService implements StreamService {

  private final StreamService delegate;
  public final AtomicInteger waits = new AtomicInteger();
  private final AtomicInteger waitsCancelledOrDone = new AtomicInteger();

  public WaitCountingService(StreamService delegate) {
    this.delegate = delegate;
  }

  /** Waits registered and neither signalled nor cancelled yet. */
  public int pendingWaits() {
    return waits.get() - waitsCancelledOrDone.get();
  }

  /** Waits until {@link #waits} exceeds {@code seen}, failing after {@code within}. */
  public void awaitWaitsAbove(int seen, Duration within) {
    await("a wait registered beyond the " + seen + " seen")
        .atMost(within)
        .pollInterval(Duration.ofMillis(1))
        .until(() -> waits.get() > seen);
  }

  /** Waits until every registered wait has completed or been cancelled. */
  public void awaitAllWaitsReleased(Duration within) {
    await("every registered wait released")
        .atMost(within)
        .pollInterval(Duration.ofMillis(1))
        .until(() -> pendingWaits() == 0);
  }

  @Override
  public CompletableFuture<Void> awaitBeyond(String name, long seq) {
    waits.incrementAndGet();
    CompletableFuture<Void> signal = delegate.awaitBeyond(name, seq);
    signal.whenComplete((ignored, failure) -> waitsCancelledOrDone.incrementAndGet());
    return signal;
  }

  @Override
  public CompletableFuture<CreateOutcome> create(String name, CreateRequest request) {
    return delegate.create(name, request);
  }

  @Override
  public CompletableFuture<AppendVerdict> append(String name, AppendRequest request) {
    return delegate.append(name, request);
  }

  @Override
  public CompletableFuture<ReadOutcome> read(String name, ReadWindow request) {
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
  public CompletableFuture<StreamPage> list(ListQuery request) {
    return delegate.list(request);
  }
}
