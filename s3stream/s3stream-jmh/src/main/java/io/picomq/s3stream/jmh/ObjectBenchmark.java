package io.picomq.s3stream.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.object.EncodedObject;
import io.picomq.s3stream.object.ObjectNamespace;
import io.picomq.s3stream.object.ObjectReadResult;
import io.picomq.s3stream.object.ObjectReader;
import io.picomq.s3stream.object.ObjectWriter;
import io.picomq.s3stream.object.WrittenObject;
import io.picomq.s3stream.objectstore.MemoryObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The data object format: building a 16 MiB object from 1 KiB batches (16384 batches, 1 MiB
 * blocks), and, on such an object in the in-memory store, opening it (tail GET, footer and index)
 * and reading one offset (binary search, one 1 MiB block GET, decoding and checking its 1024
 * batches). The memory store copies on put and get, so {@code buildAndPut} and {@code
 * readOneOffset} include one copy of the bytes they move.
 *
 * <p>Run: {@code java -jar s3stream/s3stream-jmh/target/benchmarks.jar ObjectBenchmark -f 1 -wi 2
 * -i 3 -w 1s -r 2s}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ObjectBenchmark {

  private static final int PAYLOAD_BYTES = 1024;
  private static final int BATCHES = 16 * 1024;
  private static final int BLOCK_BYTES = 1 << 20;
  private static final long STREAM_ID = 7;
  private static final long OBJECT_ID = 1;

  private final ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
  private final List<ByteBuf> encoded = new ArrayList<>(BATCHES);
  private MemoryObjectStore store;
  private WrittenObject written;
  private ObjectReader reader;
  private long nextOffset;

  @Setup(Level.Trial)
  public void setUp() {
    ByteBuf payload = allocator.directBuffer(PAYLOAD_BYTES);
    for (int i = 0; i < PAYLOAD_BYTES; i++) {
      payload.writeByte(i * 31 + 7);
    }
    for (int i = 0; i < BATCHES; i++) {
      encoded.add(RecordBatchCodec.encode(new RecordBatch(STREAM_ID, 1, i, 1, payload), allocator));
    }
    payload.release();
    store = new MemoryObjectStore();
    written = build().putTo(store, ObjectNamespace.DEFAULT, OBJECT_ID).join();
    reader =
        ObjectReader.open(store, ObjectNamespace.DEFAULT, OBJECT_ID, written.sizeBytes()).join();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    encoded.forEach(ByteBuf::release);
    store.close();
  }

  /** The writer takes ownership of what it is given, so each run hands it new references. */
  private EncodedObject build() {
    ObjectWriter writer = new ObjectWriter(BLOCK_BYTES, allocator);
    for (ByteBuf batch : encoded) {
      writer.append(batch.retainedDuplicate());
    }
    return writer.finish();
  }

  @Benchmark
  public long buildObject() {
    EncodedObject object = build();
    long size = object.sizeBytes();
    object.bytes().release();
    return size;
  }

  @Benchmark
  public long buildAndPut() {
    return build().putTo(store, ObjectNamespace.DEFAULT, OBJECT_ID + 1).join().sizeBytes();
  }

  @Benchmark
  public int openObject() {
    return ObjectReader.open(store, ObjectNamespace.DEFAULT, OBJECT_ID, written.sizeBytes())
        .join()
        .index()
        .entries()
        .size();
  }

  @Benchmark
  public int readOneOffset() {
    long offset = nextOffset;
    nextOffset = (nextOffset + 4099) % BATCHES; // a different block each time
    ObjectReadResult result = reader.read(STREAM_ID, offset, offset + 1, Integer.MAX_VALUE).join();
    int count = result.batches().size();
    result.release();
    return count;
  }
}
