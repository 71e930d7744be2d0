package io.picomq.s3stream.conformance;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.picomq.s3stream.codec.Crc32;
import io.picomq.s3stream.codec.RecordBatch;
import io.picomq.s3stream.codec.RecordBatchCodec;
import io.picomq.s3stream.codec.WalRecord;
import io.picomq.s3stream.codec.WalRecordCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Golden files of the codec formats (specification: record-batch.md, wal-record.md, crc.md):
 *
 * <ul>
 *   <li>{@code record/}: record batches, incl. empty payload, link record, zero count, the largest
 *       and smallest field values, and a 4 KiB payload;
 *   <li>{@code wal_record/}: framed data records (at offset 0, at a large offset, empty body, a
 *       record batch body) and padding records (minimal and 64 bytes);
 *   <li>{@code crc/manifest.json}: CRC values for fixed inputs (inputs and answers in one file).
 * </ul>
 *
 * Each folder's {@code manifest.json} lists the inputs of each file. Before returning, every
 * encoded file is decoded again and compared with its inputs, so a generator bug cannot pin wrong
 * bytes silently.
 */
public final class CodecFixtures implements FixtureSet {

  private static final ByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

  /** One record batch fixture's inputs. */
  private record BatchInput(
      String name, long streamId, long epoch, long baseOffset, int count, byte[] payload) {
    RecordBatch batch() {
      return new RecordBatch(streamId, epoch, baseOffset, count, Unpooled.wrappedBuffer(payload));
    }
  }

  @Override
  public List<Fixture> fixtures() {
    List<Fixture> fixtures = new ArrayList<>();
    fixtures.addAll(records());
    fixtures.addAll(walRecords());
    fixtures.add(crcAnswers());
    return fixtures;
  }

  private static List<BatchInput> batchInputs() {
    return List.of(
        new BatchInput("basic", 1, 2, 3, 2, ascii("hello")),
        new BatchInput("empty_payload", 42, 7, 100, 1, new byte[0]),
        new BatchInput("link_record", 5, 3, 1000, -8, pattern(32)),
        new BatchInput("zero_count", 0, 0, 0, 0, ascii("z")),
        new BatchInput(
            "max_values",
            Long.MAX_VALUE,
            Long.MAX_VALUE,
            Long.MAX_VALUE,
            Integer.MAX_VALUE,
            ascii("m")),
        new BatchInput(
            "min_values",
            Long.MIN_VALUE,
            Long.MIN_VALUE,
            Long.MIN_VALUE,
            Integer.MIN_VALUE,
            new byte[0]),
        new BatchInput("payload_4k", 88, 1, 0, 10, pattern(4096)));
  }

  private static List<Fixture> records() {
    List<Fixture> fixtures = new ArrayList<>();
    List<Map<String, Object>> manifest = new ArrayList<>();
    for (BatchInput input : batchInputs()) {
      RecordBatch batch = input.batch();
      byte[] bytes = drain(RecordBatchCodec.encode(batch, ALLOC));
      RecordBatch decoded = RecordBatchCodec.decode(Unpooled.wrappedBuffer(bytes));
      check(decoded.equals(batch), "record/" + input.name() + " does not decode to its inputs");
      fixtures.add(new Fixture("record/" + input.name() + ".bin", bytes));
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", input.name());
      entry.put("stream_id", input.streamId());
      entry.put("epoch", input.epoch());
      entry.put("base_offset", input.baseOffset());
      entry.put("count", input.count());
      entry.put("payload_hex", hex(input.payload()));
      entry.put("last_offset", batch.lastOffset());
      entry.put("encoded_size", bytes.length);
      manifest.add(entry);
    }
    fixtures.add(new Fixture("record/manifest.json", FixtureJson.manifest(manifest)));
    return fixtures;
  }

  private static List<Fixture> walRecords() {
    List<Fixture> fixtures = new ArrayList<>();
    List<Map<String, Object>> manifest = new ArrayList<>();
    byte[] batchBody =
        drain(
            RecordBatchCodec.encode(
                new RecordBatch(7, 2, 40, 3, Unpooled.wrappedBuffer(ascii("abc"))), ALLOC));
    Object[][] data = {
      {"data_at_zero", 0L, ascii("hello wal")},
      {"data_at_offset", 123_456_789L, pattern(300)},
      {"data_empty_body", 4096L, new byte[0]},
      {"data_record_batch", 64L * 1024 * 1024, batchBody},
    };
    for (Object[] d : data) {
      String name = (String) d[0];
      long offset = (Long) d[1];
      byte[] body = (byte[]) d[2];
      byte[] bytes = drain(WalRecordCodec.encodeData(offset, Unpooled.wrappedBuffer(body), ALLOC));
      WalRecord decoded = WalRecordCodec.decode(Unpooled.wrappedBuffer(bytes));
      check(
          decoded instanceof WalRecord.Data record
              && record.header().recordOffset() == offset
              && record.body().equals(Unpooled.wrappedBuffer(body)),
          "wal_record/" + name + " does not decode to its inputs");
      fixtures.add(new Fixture("wal_record/" + name + ".bin", bytes));
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", name);
      entry.put("kind", "data");
      entry.put("start_offset", offset);
      entry.put("body_hex", hex(body));
      manifest.add(entry);
    }
    for (int size : new int[] {24, 64}) {
      String name = "padding_" + size;
      long offset = 8192;
      byte[] bytes = drain(WalRecordCodec.encodePadding(offset, size, ALLOC));
      WalRecord decoded = WalRecordCodec.decode(Unpooled.wrappedBuffer(bytes));
      check(
          decoded instanceof WalRecord.Padding p && p.header().recordSize() == size,
          "wal_record/" + name + " does not decode to its inputs");
      fixtures.add(new Fixture("wal_record/" + name + ".bin", bytes));
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", name);
      entry.put("kind", "padding");
      entry.put("start_offset", offset);
      entry.put("total_length", size);
      manifest.add(entry);
    }
    fixtures.add(new Fixture("wal_record/manifest.json", FixtureJson.manifest(manifest)));
    return fixtures;
  }

  private static Fixture crcAnswers() {
    byte[] allBytes = new byte[256];
    for (int i = 0; i < allBytes.length; i++) {
      allBytes[i] = (byte) i;
    }
    byte[] ones = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
    Object[][] inputs = {
      {"empty", new byte[0]},
      {"check_123456789", ascii("123456789")},
      {"all_bytes", allBytes},
      {"four_ff_top_bit_masked", ones},
      {"zeros_4096", new byte[4096]},
      {"pattern_1000", pattern(1000)},
    };
    List<Map<String, Object>> answers = new ArrayList<>();
    for (Object[] input : inputs) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", input[0]);
      entry.put("input_hex", hex((byte[]) input[1]));
      entry.put("crc", Crc32.of((byte[]) input[1]));
      answers.add(entry);
    }
    return new Fixture("crc/manifest.json", FixtureJson.manifest(answers));
  }

  /** A fixed, non-repeating-looking byte pattern (the same recipe the upstream vectors use). */
  static byte[] pattern(int length) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (i * 31 + 7);
    }
    return bytes;
  }

  static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  /** The readable bytes of {@code buf}, which is then released. */
  static byte[] drain(ByteBuf buf) {
    try {
      byte[] out = new byte[buf.readableBytes()];
      buf.getBytes(buf.readerIndex(), out);
      return out;
    } finally {
      buf.release();
    }
  }

  static void check(boolean condition, String message) {
    if (!condition) {
      throw new IllegalStateException("fixture generator bug: " + message);
    }
  }
}
