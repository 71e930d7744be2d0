package io.picomq.s3stream.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.WalRecord;
import io.picomq.s3stream.codec.WalRecordCodec;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The append-path codecs: encoding and decoding a record batch, and framing a WAL record (which
 * costs one CRC32 pass over the body) and reading it back (which verifies both CRCs).
 *
 * <p>Run: {@code java -jar s3stream/s3stream-jmh/target/benchmarks.jar CodecBenchmark -f 1 -wi 2 -i
 * 3 -w 1s -r 2s}. Buffers come from the pooled direct allocator, as on the write path.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmark {

  @Param({"1024", "65536"})
  int payloadBytes;

  private final ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
  private RecordBatch batch;
  private ByteBuf encodedBatch;
  private ByteBuf framedRecord;

  @Setup(Level.Trial)
  public void setUp() {
    ByteBuf payload = allocator.directBuffer(payloadBytes);
    for (int i = 0; i < payloadBytes; i++) {
      payload.writeByte(i * 31 + 7);
    }
    batch = new RecordBatch(42, 3, 1_000_000, 16, payload);
    encodedBatch = RecordBatchCodec.encode(batch, allocator);
    framedRecord = WalRecordCodec.encodeData(64L << 20, encodedBatch, allocator);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    batch.release();
    encodedBatch.release();
    framedRecord.release();
  }

  /** Header plus a copy of the payload into a fresh pooled buffer. */
  @Benchmark
  public int encodeBatch() {
    ByteBuf encoded = RecordBatchCodec.encode(batch, allocator);
    int size = encoded.readableBytes();
    encoded.release();
    return size;
  }

  /** Header parse plus a retained slice of the payload (no copy). */
  @Benchmark
  public long decodeBatch() {
    encodedBatch.readerIndex(0);
    RecordBatch decoded = RecordBatchCodec.decode(encodedBatch);
    long last = decoded.lastOffset();
    decoded.release();
    return last;
  }

  /** The 24-byte header only: what a zero-copy writer does (CRC over the body, no copy). */
  @Benchmark
  public int frameWalRecordHeader() {
    ByteBuf header = WalRecordCodec.encodeDataHeader(4096, encodedBatch, allocator);
    int crc = header.getInt(16);
    header.release();
    return crc;
  }

  /** Header and a copy of the body into one buffer. */
  @Benchmark
  public int frameWalRecordCopy() {
    ByteBuf record = WalRecordCodec.encodeData(4096, encodedBatch, allocator);
    int size = record.readableBytes();
    record.release();
    return size;
  }

  /** Both CRC checks plus a retained slice of the body. */
  @Benchmark
  public void readWalRecord(Blackhole blackhole) {
    framedRecord.readerIndex(0);
    WalRecord record = WalRecordCodec.decode(framedRecord);
    if (record instanceof WalRecord.Data data) {
      blackhole.consume(data.header().bodyCrc());
      data.body().release();
    }
  }
}
