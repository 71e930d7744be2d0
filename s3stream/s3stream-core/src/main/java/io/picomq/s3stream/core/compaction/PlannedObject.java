package io.picomq.s3stream.core.compaction;

import java.util.List;

/** One object a compaction round writes, with the source blocks that go into it, in order. */
public sealed interface PlannedObject {

  List<SourceBlock> blocks();

  /** Bytes of the source blocks: what the round reads for this object. */
  default long sizeBytes() {
    long size = 0;
    for (SourceBlock block : blocks()) {
      size += block.sizeBytes();
    }
    return size;
  }

  /**
   * A new stream object (upstream: SPLIT): contiguous blocks of one stream, in offset order.
   *
   * @param blocks at least one
   */
  record Split(List<SourceBlock> blocks) implements PlannedObject {
    public Split {
      blocks = List.copyOf(blocks);
      if (blocks.isEmpty()) {
        throw new IllegalArgumentException("a split stream object needs a block");
      }
      long streamId = blocks.get(0).streamId();
      for (int i = 1; i < blocks.size(); i++) {
        SourceBlock previous = blocks.get(i - 1);
        SourceBlock block = blocks.get(i);
        if (block.streamId() != streamId || block.startOffset() != previous.endOffset()) {
          throw new IllegalArgumentException(
              "blocks of a stream object must continue each other: " + previous + ", " + block);
        }
      }
    }

    public long streamId() {
      return blocks.get(0).streamId();
    }
  }

  /**
   * This round's share of the new stream-set object (upstream: COMPACT): blocks of several streams,
   * sorted by (stream id, start offset).
   *
   * @param blocks at least one
   */
  record Compact(List<SourceBlock> blocks) implements PlannedObject {
    public Compact {
      blocks = List.copyOf(blocks);
      if (blocks.isEmpty()) {
        throw new IllegalArgumentException("a stream-set object part needs a block");
      }
    }
  }
}
