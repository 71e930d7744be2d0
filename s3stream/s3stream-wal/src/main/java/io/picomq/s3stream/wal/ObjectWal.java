package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.time.Scheduler;
import io.picomq.s3stream.walobject.EncodedWalObject;
import io.picomq.s3stream.walobject.WalObjectCodec;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The object WAL: a node's log kept as small objects under its key prefix in an object store
 * ({@code s3stream/specification/wal.md}; formats in {@code wal-object.md}).
 *
 * <p>Design: three parts with one job each.
 *
 * <ul>
 *   <li>{@link WalBatcher}, under a lock on the appender's thread: fixes each record's offset and
 *       seals batches (size, interval);
 *   <li>{@link WalUploader}, on the owner executor: encodes each sealed batch once, PUTs it (up to
 *       {@code maxInflightUploadCount} at once, retrying transient failures with the same bytes),
 *       and acknowledges records in offset order; trims delete covered objects;
 *   <li>{@link WalRecoveryReader}: reads what earlier epochs left.
 * </ul>
 *
 * <p>Start-up first writes this epoch's <em>fence marker</em> ({@link FenceMarkers}) and only then
 * lists the WAL, so every object an older writer acknowledged (its fence check listed the markers
 * after the PUT and did not see this one) is in that listing. It then writes a <em>fence
 * object</em> (a marker record whose header carries the trim offset found) at the end of the
 * address space used so far, before anything else: its start is this epoch's fence point, so
 * objects that older writers store later, at or beyond it, are ignored by every later recovery.
 * This epoch never deletes it. Reset then trims past everything older with a marker object and
 * deletes the older objects.
 *
 * <p>The object store is the caller's: it is neither retried around nor closed here beyond what
 * {@link WalUploader} does for PUTs (wrap it in a {@link
 * io.picomq.s3stream.objectstore.RetryingObjectStore} for per-call retries).
 */
public final class ObjectWal implements WriteAheadLog {

  private static final Logger LOG = LoggerFactory.getLogger(ObjectWal.class);

  private enum Phase {
    NEW,
    STARTING,
    STARTED,
    RECOVERING,
    RECOVERED,
    OPEN
  }

  private final ObjectStore store;
  private final WalNode node;
  private final String nodePrefix;
  private final WalConfig config;
  private final ByteBufAllocator allocator;
  private final SerialExecutor owner;
  private final WalBatcher batcher;
  private final WalUploader uploader;
  private final WalRecoveryReader reader;

  /** The lifecycle step reached; moved by the one caller of the lifecycle methods. */
  private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.NEW);

  // Set by start(), read by recover() and reset() (which happen after start completes).
  private volatile WalListing listing;
  private volatile long startTrimOffset = -1;
  private volatile long fenceEndOffset;

  /**
   * @param store where the WAL objects live; not closed by the WAL
   * @param node the node and this start's epoch
   * @param config batching and limits
   * @param scheduler clock and timers (batch interval, retry backoff)
   * @param executor runs the WAL's owner tasks, one at a time (any executor: the WAL serializes its
   *     tasks itself); durable futures complete there
   */
  public ObjectWal(
      ObjectStore store, WalNode node, WalConfig config, Scheduler scheduler, Executor executor) {
    this.store = Objects.requireNonNull(store, "store");
    this.node = Objects.requireNonNull(node, "node");
    this.nodePrefix = node.nodePrefix();
    this.config = Objects.requireNonNull(config, "config");
    this.allocator = ByteBufAllocator.DEFAULT;
    this.owner = new SerialExecutor(executor);
    this.batcher =
        new WalBatcher(config, Objects.requireNonNull(scheduler, "scheduler"), this::drainOnOwner);
    this.uploader = new WalUploader(store, node, config, batcher, scheduler, owner, allocator);
    this.reader = new WalRecoveryReader(store);
  }

  @Override
  public CompletableFuture<Void> start() {
    move(Phase.NEW, Phase.STARTING, "start()");
    return writeFenceMarker()
        .thenCompose(ignored -> store.list(nodePrefix))
        .thenCompose(
            objects -> {
              WalListing found = WalListing.of(nodePrefix, objects);
              checkEpoch(found, FenceMarkers.newestEpoch(nodePrefix, objects));
              listing = found;
              return reader.readTrimOffset(found.kept());
            })
        .thenCompose(trimOffset -> writeFenceObject(listing.endOffset(), trimOffset))
        .whenComplete(
            (ignored, error) -> {
              if (error == null) {
                uploader.begin(fenceEndOffset, startTrimOffset);
                phase.set(Phase.STARTED);
              } else if (Causes.unwrap(error) instanceof WalFencedException fenced) {
                stopOnOwner(new WalStatus.Fenced(node.epoch(), fenced.getMessage()));
              } else {
                stopOnOwner(new WalStatus.Closed("start failed: " + Causes.unwrap(error)));
              }
            });
  }

  @Override
  public CompletableFuture<Recovery> recover() {
    move(Phase.STARTED, Phase.RECOVERING, "recover()");
    return reader
        .read(listing.kept(), startTrimOffset)
        .whenComplete(
            (recovery, error) -> {
              phase.set(Phase.RECOVERED);
              if (recovery != null) {
                LOG.info(
                    "WAL of {} recovered {} records above trim offset {}{}",
                    node,
                    recovery.records().size(),
                    recovery.trimOffset(),
                    recovery.stoppedBy().map(why -> "; stopped early: " + why).orElse(""));
              }
            });
  }

  @Override
  public CompletableFuture<Void> reset() {
    if (!phase.compareAndSet(Phase.RECOVERED, Phase.OPEN)) {
      move(Phase.STARTED, Phase.OPEN, "reset()");
    }
    batcher.open(fenceEndOffset, startTrimOffset);
    // Everything below the first offset this epoch appends at is consumed.
    return batcher.trim(fenceEndOffset - 1).thenCompose(ignored -> deleteOlderEpochs());
  }

  @Override
  public WalAppendResult append(ByteBuf body) {
    Objects.requireNonNull(body, "body");
    return batcher.append(body);
  }

  @Override
  public long confirmOffset() {
    return uploader.confirmOffset();
  }

  @Override
  public CompletableFuture<Void> trim(long offset) {
    long confirmed = uploader.confirmOffset();
    if (offset >= confirmed) {
      throw new IllegalArgumentException(
          "trim(" + offset + ") would pass the confirm offset " + confirmed);
    }
    if (offset <= uploader.persistedTrimOffset()) {
      return CompletableFuture.completedFuture(null);
    }
    return batcher.trim(offset);
  }

  @Override
  public void fence(String reason) {
    stopOnOwner(new WalStatus.Fenced(node.epoch(), reason));
  }

  @Override
  public CompletableFuture<Void> shutdownGracefully() {
    CompletableFuture<Void> idle = new CompletableFuture<>();
    batcher.beginClosing();
    owner.execute(() -> uploader.whenIdle(idle));
    return idle.whenComplete((ignored, error) -> stopOnOwner(new WalStatus.Closed("shut down")));
  }

  @Override
  public void close() {
    stopOnOwner(new WalStatus.Closed("closed"));
  }

  /** Framed bytes appended and not yet stored. */
  public long unflushedBytes() {
    return batcher.unflushedBytes();
  }

  /** WAL object PUT attempts so far, retries included (the fence object excluded). */
  public long putCount() {
    return uploader.putCount();
  }

  /** Fence-check LISTs of the fence markers so far, retries included. */
  public long fenceListCount() {
    return uploader.fenceListCount();
  }

  @Override
  public String toString() {
    return "ObjectWal[" + node + ", " + batcher.status() + "]";
  }

  private void drainOnOwner() {
    owner.execute(uploader::drain);
  }

  private void stopOnOwner(WalStatus terminal) {
    SealedBatch leftover = batcher.stop(terminal);
    owner.execute(() -> uploader.stop(terminal, leftover));
  }

  private void move(Phase from, Phase to, String what) {
    if (!phase.compareAndSet(from, to)) {
      throw new IllegalStateException(
          what + " needs the WAL in phase " + from + ", it is in " + phase.get());
    }
  }

  private void checkEpoch(WalListing found, OptionalLong newestMarker) {
    if (newestMarker.isPresent() && newestMarker.getAsLong() > node.epoch()) {
      throw new WalFencedException(
          node.epoch(), "the newer epoch " + newestMarker.getAsLong() + " already started");
    }
    long newest = found.newestEpoch().orElse(-1L);
    if (newest > node.epoch()) {
      throw new WalFencedException(
          node.epoch(), "the WAL already holds objects of the newer epoch " + newest);
    }
    if (newest == node.epoch()) {
      throw new IllegalStateException(
          "the WAL of node "
              + node.nodeId()
              + " already holds objects of epoch "
              + newest
              + ": every start needs a new, higher epoch");
    }
  }

  /**
   * Stores this epoch's fence marker, an empty object: from now on every older writer's fence check
   * fails, and whatever an older writer acknowledged before is stored already.
   */
  private CompletableFuture<Void> writeFenceMarker() {
    ByteBuf empty = Unpooled.EMPTY_BUFFER;
    return store.put(FenceMarkers.key(nodePrefix, node.epoch()), empty);
  }

  /**
   * Stores this epoch's fence object at {@code startOffset}: one marker record, the header carrying
   * the trim offset found, so a crash before reset loses nothing.
   */
  private CompletableFuture<Void> writeFenceObject(long startOffset, long trimOffset) {
    EncodedWalObject fence =
        WalObjectCodec.encode(
            startOffset,
            node.nodeId(),
            node.epoch(),
            trimOffset,
            List.of(TrimMarkerBody.body()),
            allocator);
    String key = WalObjectKeys.keyV1(nodePrefix, node.epoch(), startOffset, fence.endOffset());
    startTrimOffset = trimOffset;
    fenceEndOffset = fence.endOffset();
    return store.put(key, fence.bytes()).whenComplete((ignored, error) -> fence.bytes().release());
  }

  /** Deletes every object of an older epoch, listed afresh to catch late writes of fenced ones. */
  private CompletableFuture<Void> deleteOlderEpochs() {
    return store
        .list(nodePrefix)
        .thenCompose(
            objects -> {
              WalListing now = WalListing.of(nodePrefix, objects);
              long newest =
                  Math.max(
                      now.newestEpoch().orElse(-1L),
                      FenceMarkers.newestEpoch(nodePrefix, objects).orElse(-1L));
              if (newest > node.epoch()) {
                fence("a newer epoch " + newest + " appeared in the WAL");
                return CompletableFuture.failedFuture(
                    new WalFencedException(node.epoch(), "newer epoch " + newest + " found"));
              }
              List<String> older =
                  now.all().stream()
                      .filter(o -> o.epoch() < node.epoch())
                      .map(o -> o.key().key())
                      .collect(Collectors.toCollection(ArrayList::new));
              // Older markers only fenced writers that this epoch's marker fences too.
              older.addAll(FenceMarkers.olderThan(nodePrefix, objects, node.epoch()));
              return older.isEmpty()
                  ? CompletableFuture.completedFuture(null)
                  : store.delete(older);
            });
  }
}
