package io.picomq.s3stream.wal;

import io.netty.buffer.ByteBuf;
import io.picomq.s3stream.api.Causes;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.WalRecord;
import io.picomq.s3stream.objectstore.ObjectNotFoundException;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.walobject.WalObjectCodec;
import io.picomq.s3stream.walobject.WalObjectContents;
import io.picomq.s3stream.walobject.WalObjectHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reads what a node's earlier epochs left in its WAL: first the trim offset, then the records after
 * it, object by object, up to the first gap or damaged record.
 *
 * <p>Contiguity, with {@code T} the trim offset: the first object that may hold a record above
 * {@code T} (its end is above {@code T + 1}) must start at or before {@code T + 1}; every later
 * object must start exactly where the previous one ends. A writer deletes only objects that end at
 * or below {@code T + 1} (see {@code wal.md}), so a missing object can only mean a PUT that never
 * landed, whose records were therefore never acknowledged, nor any after them.
 */
final class WalRecoveryReader {

  /** Objects fetched ahead of the one being decoded. */
  private static final int READ_AHEAD = 4;

  private final ObjectStore store;

  WalRecoveryReader(ObjectStore store) {
    this.store = store;
  }

  /**
   * The trim offset carried by the newest object whose header reads back intact and matches its key
   * ({@code -1} if none does, or if it is a v0 header, which carries none). A writer's trim offset
   * only grows and every object carries the value current when it was sealed, so the newest object
   * has the highest.
   */
  CompletableFuture<Long> readTrimOffset(List<ListedObject> kept) {
    return readTrimOffset(kept, kept.size() - 1);
  }

  private CompletableFuture<Long> readTrimOffset(List<ListedObject> kept, int index) {
    if (index < 0) {
      return CompletableFuture.completedFuture(WalObjectHeader.V1.NOT_TRIMMED);
    }
    ListedObject object = kept.get(index);
    long headerBytes = Math.min(WalObjectCodec.MAX_HEADER_SIZE, object.sizeBytes());
    return store
        .get(object.key().key(), 0, headerBytes)
        .handle(
            (bytes, error) -> {
              if (error != null) {
                if (Causes.unwrap(error) instanceof ObjectNotFoundException) {
                  return Optional.<Long>empty();
                }
                throw new CompletionException(Causes.unwrap(error));
              }
              try {
                WalObjectHeader header = WalObjectCodec.readHeader(bytes, bytes.readerIndex());
                if (!matches(header, object)) {
                  return Optional.<Long>empty();
                }
                return Optional.of(
                    header instanceof WalObjectHeader.V1 v1
                        ? v1.trimOffset()
                        : WalObjectHeader.V1.NOT_TRIMMED);
              } catch (CorruptDataException torn) {
                return Optional.<Long>empty();
              } finally {
                bytes.release();
              }
            })
        .thenCompose(
            trim ->
                trim.isPresent()
                    ? CompletableFuture.completedFuture(trim.get())
                    : readTrimOffset(kept, index - 1));
  }

  /**
   * Reads the records above {@code trimOffset} from {@code kept} (ascending offsets, fencing rule
   * applied). Fails only if storage fails; damage and gaps end the recovery early, as {@link
   * Recovery#stoppedBy()} reports.
   */
  CompletableFuture<Recovery> read(List<ListedObject> kept, long trimOffset) {
    List<ListedObject> chain = new ArrayList<>();
    Optional<String> gap = contiguousChain(kept, trimOffset, chain);
    return new ChainRead(chain, trimOffset, gap).start();
  }

  /**
   * Fills {@code chain} with the objects to read and returns why the chain ends before the last
   * object, if it does.
   */
  static Optional<String> contiguousChain(
      List<ListedObject> kept, long trimOffset, List<ListedObject> chain) {
    long firstUntrimmed = trimOffset + 1;
    long expectedStart = -1;
    for (ListedObject object : kept) {
      if (object.endOffset() <= firstUntrimmed) {
        continue; // every record in it is trimmed
      }
      if (expectedStart < 0) {
        if (object.startOffset() > firstUntrimmed) {
          return Optional.of(
              "gap: the first object after trim offset "
                  + trimOffset
                  + " is "
                  + object
                  + ", which starts after "
                  + firstUntrimmed);
        }
      } else if (object.startOffset() != expectedStart) {
        return Optional.of(
            "gap: expected an object starting at " + expectedStart + ", found " + object);
      }
      chain.add(object);
      expectedStart = object.endOffset();
    }
    return Optional.empty();
  }

  private static boolean matches(WalObjectHeader header, ListedObject object) {
    return header.startOffset() == object.startOffset() && header.nodeEpoch() == object.epoch();
  }

  /**
   * One pass over a chain: fetches up to {@link #READ_AHEAD} objects ahead and decodes them in
   * order. Only one thread advances it at a time (each step registers the next one as a callback).
   */
  private final class ChainRead {
    private final List<ListedObject> chain;
    private final long trimOffset;
    private final List<CompletableFuture<ByteBuf>> fetches = new ArrayList<>();
    private final List<RecoveredRecord> records = new ArrayList<>();
    private final CompletableFuture<Recovery> result = new CompletableFuture<>();
    private Optional<String> stoppedBy;
    private int index;

    ChainRead(List<ListedObject> chain, long trimOffset, Optional<String> gap) {
      this.chain = chain;
      this.trimOffset = trimOffset;
      this.stoppedBy = gap;
    }

    CompletableFuture<Recovery> start() {
      advance();
      return result;
    }

    private void advance() {
      while (index < chain.size()) {
        while (fetches.size() < chain.size() && fetches.size() <= index + READ_AHEAD) {
          fetches.add(store.get(chain.get(fetches.size()).key().key(), 0, -1));
        }
        CompletableFuture<ByteBuf> fetch = fetches.get(index);
        if (!fetch.isDone()) {
          fetch.whenComplete((ignored, error) -> advance());
          return;
        }
        ByteBuf object;
        try {
          object = fetch.join();
        } catch (CompletionException e) {
          if (Causes.unwrap(e) instanceof ObjectNotFoundException) {
            stoppedBy = Optional.of("gap: " + chain.get(index) + " vanished after it was listed");
            finish();
          } else {
            fail(Causes.unwrap(e));
          }
          return;
        }
        boolean whole;
        try {
          whole = take(chain.get(index), object);
        } catch (RuntimeException e) {
          fail(e);
          return;
        } finally {
          object.release();
        }
        index++;
        if (!whole) {
          finish();
          return;
        }
      }
      finish();
    }

    /** Adds the object's untrimmed records; false if reading must stop after this object. */
    private boolean take(ListedObject listed, ByteBuf object) {
      WalObjectContents contents;
      try {
        contents = WalObjectCodec.decode(object);
      } catch (CorruptDataException e) {
        stoppedBy = Optional.of("unreadable header in " + listed + ": " + e.getMessage());
        return false;
      }
      if (!matches(contents.header(), listed)) {
        contents.release();
        stoppedBy =
            Optional.of("header " + contents.header() + " does not match its key " + listed);
        return false;
      }
      for (WalRecord.Data record : contents.records()) {
        long offset = record.header().recordOffset();
        if (offset <= trimOffset || TrimMarkerBody.is(record.body())) {
          record.body().release();
        } else {
          records.add(new RecoveredRecord(offset, record.body()));
        }
      }
      contents.stoppedBy().ifPresent(e -> stoppedBy = Optional.of(listed + ": " + e.getMessage()));
      return contents.complete();
    }

    private void finish() {
      releaseFetchesFrom(index);
      result.complete(new Recovery(records, trimOffset, stoppedBy));
    }

    private void fail(Throwable error) {
      records.forEach(r -> r.body().release());
      releaseFetchesFrom(index + 1);
      result.completeExceptionally(error);
    }

    private void releaseFetchesFrom(int from) {
      for (int i = from; i < fetches.size(); i++) {
        fetches.get(i).thenAccept(ByteBuf::release);
      }
    }
  }
}
