package io.picomq.s3stream.object;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.picomq.s3stream.codec.CorruptDataException;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.RecordBatchHeader;
import io.picomq.s3stream.objectstore.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Builds one normal data object from encoded record batches.
 *
 * <p>Input order: batches arrive sorted by stream id, and within a stream by offset without
 * overlap: a batch whose stream id is lower than the previous batch's, or whose base offset is
 * below the previous batch's end in the same stream, is rejected (the upstream's checks). A gap
 * between two batches of a stream is allowed (compaction can produce one) and starts a new block,
 * so an index entry never claims offsets its block does not hold; the stream then has one {@link
 * StreamRange} per gap-free run.
 *
 * <p>Blocks: one stream per block. A block also ends once the payload bytes appended since the last
 * threshold cut reach {@code blockSizeThresholdBytes}, counting the batch that crosses it. As in
 * the upstream, that counter is reset only by a threshold cut, not when a block ends because the
 * stream changed, so a stream's first block may be cut early by its predecessor's leftover bytes.
 * With threshold 300 and payloads (stream 1: 200) (stream 2: 150, 150):
 *
 * <pre>
 *   stream 1: counter 200           -> block [s1: 200] ends when stream 2 starts; counter stays 200
 *   stream 2: counter 350 >= 300    -> block [s2: 150] cut, counter 0
 *             counter 150           -> block [s2: 150] ends at finish
 * </pre>
 *
 * This keeps our objects byte-identical to the upstream's for the same input (the upstream vectors
 * in {@code upstream/object/} pin it). Beyond the upstream, a block also ends before a batch that
 * would push its offsets span or byte size past a signed 32-bit field.
 *
 * <p>Buffers: the writer takes ownership of every batch buffer passed to {@link #append}, accepted
 * or rejected. The finished object references them without copying. {@link #close} releases
 * whatever an unfinished writer holds.
 *
 * <p>Threading: not thread-safe; one owner drives a writer from start to finish.
 */
public final class ObjectWriter implements AutoCloseable {

  /** An object is one buffer, so its size must fit in an int. */
  private static final long MAX_OBJECT_BYTES = Integer.MAX_VALUE;

  private final int blockSizeThresholdBytes;
  private final ByteBufAllocator allocator;

  // Owner-thread state.
  private final List<Block> blocks = new ArrayList<>();
  private Block openBlock;
  private long payloadBytesSinceCut;
  private long lastStreamId = -1;
  private long lastEndOffset;
  private long dataBytes;
  private boolean done;

  /**
   * @param blockSizeThresholdBytes payload bytes after which a block is cut, {@code > 0}
   * @param allocator allocates the block headers, index and footer
   */
  public ObjectWriter(int blockSizeThresholdBytes, ByteBufAllocator allocator) {
    if (blockSizeThresholdBytes <= 0) {
      throw new IllegalArgumentException(
          "blockSizeThresholdBytes must be > 0: " + blockSizeThresholdBytes);
    }
    this.blockSizeThresholdBytes = blockSizeThresholdBytes;
    this.allocator = Objects.requireNonNull(allocator, "allocator");
  }

  /**
   * Adds one encoded record batch (exactly one, as {@link RecordBatchCodec#encode} produces).
   *
   * @param encodedBatch the batch as readable bytes; the writer takes ownership and releases it,
   *     also when this method throws
   * @throws CorruptDataException if the bytes are not one well-formed batch
   * @throws IllegalArgumentException if the batch breaks the input order, has a negative stream id
   *     or offset, or would make the object larger than 2 GiB
   * @throws IllegalStateException after {@link #finish} or {@link #close}
   */
  public void append(ByteBuf encodedBatch) {
    RecordBatchHeader header;
    try {
      if (done) {
        throw new IllegalStateException("the object writer is finished or closed");
      }
      header = RecordBatchCodec.readHeader(encodedBatch, encodedBatch.readerIndex());
      if (encodedBatch.readableBytes() != header.encodedSize()) {
        throw new IllegalArgumentException(
            "expected exactly one encoded batch of "
                + header.encodedSize()
                + " bytes, got "
                + encodedBatch.readableBytes());
      }
      checkBatch(header);
    } catch (RuntimeException e) {
      encodedBatch.release();
      throw e;
    }
    if (openBlock != null && !openBlock.continuesWith(header)) {
      closeBlock();
    }
    if (openBlock == null) {
      openBlock = new Block(header.streamId(), header.baseOffset());
    }
    openBlock.add(encodedBatch, header);
    dataBytes += header.encodedSize();
    lastStreamId = header.streamId();
    lastEndOffset = header.lastOffset();
    payloadBytesSinceCut += header.payloadLength();
    if (payloadBytesSinceCut >= blockSizeThresholdBytes) {
      closeBlock();
      payloadBytesSinceCut = 0;
    }
  }

  /** Bytes the object would have if it were finished now. */
  public long sizeBytes() {
    int blockCount = blocks.size() + (openBlock == null ? 0 : 1);
    return dataBytes
        + (long) blockCount * (DataBlockCodec.HEADER_SIZE + IndexEntry.SIZE)
        + Footer.SIZE;
  }

  /** True if no batch was appended yet. */
  public boolean isEmpty() {
    return blocks.isEmpty() && openBlock == null;
  }

  /**
   * Ends the object: lays out the blocks, then the index and the footer. An object without batches
   * is valid (an empty index and the footer).
   *
   * @return the object; the caller owns its bytes, which reference the appended batch buffers
   * @throws IllegalStateException if called twice or after {@link #close}
   */
  public EncodedObject finish() {
    if (done) {
      throw new IllegalStateException("the object writer is finished or closed");
    }
    if (openBlock != null) {
      closeBlock();
    }
    done = true;
    CompositeByteBuf out = allocator.compositeBuffer(Integer.MAX_VALUE);
    try {
      List<IndexEntry> entries = new ArrayList<>(blocks.size());
      long position = 0;
      for (Block block : blocks) {
        IndexEntry entry = block.entry(position);
        entries.add(entry);
        position = entry.endPosition();
        ByteBuf header = allocator.buffer(DataBlockCodec.HEADER_SIZE);
        DataBlockCodec.writeHeader(header, block.batches.size(), block.dataLength);
        out.addComponent(true, header);
        block.moveBatchesTo(out);
      }
      ByteBuf tail = allocator.buffer(entries.size() * IndexEntry.SIZE + Footer.SIZE);
      entries.forEach(entry -> entry.encodeTo(tail));
      new Footer(position, entries.size() * IndexEntry.SIZE, ObjectType.NORMAL).encodeTo(tail);
      out.addComponent(true, tail);
      blocks.clear();
      return new EncodedObject(out, entries, StreamRange.of(entries), ObjectAttributes.NORMAL);
    } catch (RuntimeException e) {
      out.release();
      close();
      throw e;
    }
  }

  /**
   * Finishes the object and stores it under {@code namespace.key(objectId)}; the object's bytes are
   * released once the put completed.
   *
   * @return completes when the object is durable, or with the store's error
   */
  public CompletableFuture<WrittenObject> upload(
      ObjectStore store, ObjectNamespace namespace, long objectId) {
    namespace.key(objectId); // reject a bad id before the writer is consumed
    return finish().putTo(store, namespace, objectId);
  }

  /** Releases the batches of an unfinished writer; does nothing after {@link #finish}. */
  @Override
  public void close() {
    done = true;
    if (openBlock != null) {
      blocks.add(openBlock);
      openBlock = null;
    }
    blocks.forEach(Block::release);
    blocks.clear();
  }

  private void checkBatch(RecordBatchHeader header) {
    long span = header.lastOffset() - header.baseOffset();
    if (header.streamId() < 0 || header.baseOffset() < 0 || span < 0 || span > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "batch of stream "
              + header.streamId()
              + " at offset "
              + header.baseOffset()
              + " with count "
              + header.count()
              + " cannot be stored in an object");
    }
    if (!isEmpty()) {
      if (header.streamId() < lastStreamId) {
        throw new IllegalArgumentException(
            "stream ids must not decrease: stream " + header.streamId() + " after " + lastStreamId);
      }
      if (header.streamId() == lastStreamId && header.baseOffset() < lastEndOffset) {
        throw new IllegalArgumentException(
            "batch ["
                + header.baseOffset()
                + ", "
                + header.lastOffset()
                + ") of stream "
                + header.streamId()
                + " overlaps the previous batch ending at "
                + lastEndOffset);
      }
    }
    long grown = sizeBytes() + header.encodedSize() + DataBlockCodec.HEADER_SIZE + IndexEntry.SIZE;
    if (grown > MAX_OBJECT_BYTES) {
      throw new IllegalArgumentException(
          "object would exceed " + MAX_OBJECT_BYTES + " bytes; finish it and start another");
    }
  }

  private void closeBlock() {
    blocks.add(openBlock);
    openBlock = null;
  }

  /** The batches of one block, owned by the writer until moved into the object. */
  private static final class Block {
    private final long streamId;
    private final long startOffset;
    private final List<ByteBuf> batches = new ArrayList<>();
    private long endOffset;
    private int dataLength;

    Block(long streamId, long startOffset) {
      this.streamId = streamId;
      this.startOffset = startOffset;
      this.endOffset = startOffset;
    }

    /** Whether the batch may join this block: same stream, no gap, fields stay in range. */
    boolean continuesWith(RecordBatchHeader header) {
      return header.streamId() == streamId
          && header.baseOffset() == endOffset
          && header.lastOffset() - startOffset <= Integer.MAX_VALUE
          && (long) dataLength + header.encodedSize() + DataBlockCodec.HEADER_SIZE
              <= Integer.MAX_VALUE;
    }

    void add(ByteBuf encodedBatch, RecordBatchHeader header) {
      batches.add(encodedBatch);
      endOffset = header.lastOffset();
      dataLength += header.encodedSize();
    }

    IndexEntry entry(long position) {
      return new IndexEntry(
          streamId,
          startOffset,
          (int) (endOffset - startOffset),
          batches.size(),
          position,
          DataBlockCodec.HEADER_SIZE + dataLength);
    }

    /** Hands the batch buffers to {@code out}; what was not handed over stays to be released. */
    void moveBatchesTo(CompositeByteBuf out) {
      int moved = 0;
      try {
        for (ByteBuf batch : batches) {
          out.addComponent(true, batch);
          moved++;
        }
      } finally {
        batches.subList(0, moved).clear();
      }
    }

    void release() {
      batches.forEach(ByteBuf::release);
      batches.clear();
    }
  }
}
