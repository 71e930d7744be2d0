package io.picomq.s3stream.core.compaction;

import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.object.BlockLocation;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.object.ObjectReader;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The source objects of one compaction, opened (footer and index read), and reads of their blocks.
 * Immutable after {@link #open}; readers hold no buffers, so nothing needs closing.
 */
final class SourceReaders {

  private final Map<Long, Source> sources;

  private SourceReaders(Map<Long, Source> sources) {
    this.sources = sources;
  }

  /** An opened object, and where each of its blocks is in its index. */
  private record Source(
      ObjectReader reader, SourceObject object, Map<SourceBlock, Integer> entry) {}

  /** Opens every object in parallel; fails with the first failure. */
  static CompletableFuture<SourceReaders> open(
      ObjectStore store, ObjectNamespace namespace, List<ObjectMetadata> objects) {
    List<CompletableFuture<ObjectReader>> opened = new ArrayList<>(objects.size());
    for (ObjectMetadata object : objects) {
      opened.add(ObjectReader.open(store, namespace, object.objectId(), object.sizeBytes()));
    }
    return CompletableFuture.allOf(opened.toArray(CompletableFuture<?>[]::new))
        .thenApply(
            ignored -> {
              Map<Long, Source> sources = new LinkedHashMap<>();
              for (CompletableFuture<ObjectReader> future : opened) {
                ObjectReader reader = future.join();
                SourceObject object = SourceObject.of(reader.index());
                Map<SourceBlock, Integer> entry = new HashMap<>();
                for (int i = 0; i < object.blocks().size(); i++) {
                  entry.put(object.blocks().get(i), i);
                }
                sources.put(reader.objectId(), new Source(reader, object, entry));
              }
              return new SourceReaders(sources);
            });
  }

  /** The opened objects' blocks, in the order the objects were given. */
  List<SourceObject> objects() {
    return sources.values().stream().map(Source::object).toList();
  }

  /**
   * Reads whole blocks, one GET per run of adjacent blocks of an object, all objects in parallel.
   *
   * @param blocks blocks of the opened objects
   * @return each block's batches, in offset order; the caller releases every batch. On failure
   *     nothing stays retained.
   */
  CompletableFuture<Map<SourceBlock, List<RecordBatch>>> read(List<SourceBlock> blocks) {
    Map<Long, List<SourceBlock>> byObject = new TreeMap<>();
    for (SourceBlock block : blocks) {
      byObject.computeIfAbsent(block.objectId(), id -> new ArrayList<>()).add(block);
    }
    Map<Source, List<SourceBlock>> bySource = new LinkedHashMap<>();
    byObject.forEach((objectId, ofObject) -> bySource.put(source(objectId), ofObject));
    List<CompletableFuture<Map<SourceBlock, List<RecordBatch>>>> reads = new ArrayList<>();
    bySource.forEach((source, ofObject) -> reads.add(readObject(source, ofObject)));
    return CompletableFuture.allOf(reads.toArray(CompletableFuture<?>[]::new))
        .handle(
            (ignored, error) -> {
              Map<SourceBlock, List<RecordBatch>> all = new HashMap<>();
              for (CompletableFuture<Map<SourceBlock, List<RecordBatch>>> read : reads) {
                if (!read.isCompletedExceptionally()) {
                  all.putAll(read.join());
                }
              }
              if (error != null) {
                release(all);
                throw CompactionFailures.asCompletion(error);
              }
              return all;
            });
  }

  private Source source(long objectId) {
    Source source = sources.get(objectId);
    if (source == null) {
      throw new IllegalArgumentException("object " + objectId + " is not a source of this run");
    }
    return source;
  }

  private static CompletableFuture<Map<SourceBlock, List<RecordBatch>>> readObject(
      Source source, List<SourceBlock> blocks) {
    List<SourceBlock> inFileOrder = new ArrayList<>(blocks);
    inFileOrder.sort(Comparator.comparingInt(b -> entryOf(source, b)));
    List<BlockLocation> locations = new ArrayList<>(inFileOrder.size());
    for (SourceBlock block : inFileOrder) {
      locations.add(source.reader().index().locate(entryOf(source, block)));
    }
    return source
        .reader()
        .readBlocks(locations)
        .thenApply(
            batches -> {
              // readBlocks yields exactly recordCount batches per block, in the order asked.
              Map<SourceBlock, List<RecordBatch>> byBlock = new HashMap<>();
              int next = 0;
              for (int i = 0; i < inFileOrder.size(); i++) {
                int count = locations.get(i).entry().recordCount();
                byBlock.put(inFileOrder.get(i), List.copyOf(batches.subList(next, next + count)));
                next += count;
              }
              return byBlock;
            });
  }

  private static int entryOf(Source source, SourceBlock block) {
    Integer entry = source.entry().get(block);
    if (entry == null) {
      throw new IllegalArgumentException("object " + block.objectId() + " has no block " + block);
    }
    return entry;
  }

  /** Releases every batch left in {@code batches}. */
  static void release(Map<SourceBlock, List<RecordBatch>> batches) {
    batches.values().forEach(list -> list.forEach(RecordBatch::release));
    batches.clear();
  }
}
