package io.picomq.server.service;

import io.picomq.stream.Expiry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A name's registry entry, as stored in the metadata KV under {@code stream/<name>}: everything
 * about the stream that must survive a restart or a move to another node. The tail is not here: the
 * engine's committed end offset holds it.
 *
 * <p>Seqs map to engine offsets through {@code segments}: seq {@code s} with {@code seqStart <= s <
 * seqEnd} lives at offset {@code s - seqStart + offsetStart} of engine stream {@code streamId}. A
 * plain stream has one open-ended segment on its own engine stream, starting at seq 0. A fork at
 * seq {@code S} has its source's segments clipped to {@code [0, S)}, then its own from {@code S}.
 * Example: source {@code A B C} (stream 7), fork at 2: segments {@code [7: 0..2 @0], [9: 2..∞ @0]}:
 * seq 2 of the fork is offset 0 of stream 9.
 *
 * @param streamId the engine stream holding this stream's own records (its incarnation id)
 * @param activityMillis the last activity written through (the live value is kept in memory)
 * @param forkRefs how many forks read through this stream's records
 * @param writerSeq the last writer seq accepted
 * @param producers each idempotent producer's state
 * @param stampedThrough the seq below which {@code producers}, {@code writerSeq} and {@code closed}
 *     hold the effect of every stored {@link BatchStamp}: a node loading the stream replays the
 *     stamps of its own batches from here to the durable tail (see {@link EntryWriter})
 * @param tailTimestampMillis the timestamp of the record just below {@code stampedThrough} (0 when
 *     that is seq 0), or {@link #UNKNOWN_TIMESTAMP}: a node loading the stream whose durable tail
 *     is still {@code stampedThrough} takes it from here instead of reading the last record, which
 *     may be in a cold object (the source of a transfer writes it so the target reads nothing)
 */
record Registration(
    long streamId,
    String contentType,
    Expiry expiry,
    long activityMillis,
    boolean closed,
    boolean softDeleted,
    long startSeq,
    int forkRefs,
    Optional<ForkOrigin> fork,
    List<Segment> segments,
    Optional<String> writerSeq,
    Map<String, ProducerState> producers,
    long stampedThrough,
    long tailTimestampMillis) {

  /**
   * Version 2 added {@code stampedThrough}; version 1 entries still decode. {@code
   * tailTimestampMillis} is an optional trailer of version 2, not a version of its own: a node that
   * does not know it ignores the bytes past {@code stampedThrough} (so nodes of either kind read
   * each other's entries during a rolling upgrade), and an entry it rewrites simply has none.
   */
  private static final int VERSION = 2;

  /** No tail timestamp recorded: a load reads the last record. */
  static final long UNKNOWN_TIMESTAMP = -1;

  Registration {
    segments = List.copyOf(segments);
    producers = Map.copyOf(producers);
  }

  /** An entry without a tail timestamp ({@link #UNKNOWN_TIMESTAMP}). */
  Registration(
      long streamId,
      String contentType,
      Expiry expiry,
      long activityMillis,
      boolean closed,
      boolean softDeleted,
      long startSeq,
      int forkRefs,
      Optional<ForkOrigin> fork,
      List<Segment> segments,
      Optional<String> writerSeq,
      Map<String, ProducerState> producers,
      long stampedThrough) {
    this(
        streamId,
        contentType,
        expiry,
        activityMillis,
        closed,
        softDeleted,
        startSeq,
        forkRefs,
        fork,
        segments,
        writerSeq,
        producers,
        stampedThrough,
        UNKNOWN_TIMESTAMP);
  }

  /**
   * The timestamp of the record at seq {@code tail - 1}, when this entry knows it: it must have
   * been written at exactly that tail.
   */
  Optional<Long> tailTimestampAt(long tail) {
    return tail == stampedThrough && tailTimestampMillis >= 0
        ? Optional.of(tailTimestampMillis)
        : Optional.empty();
  }

  /** Where a fork branched: source name, resolved seq, bytes of the split record. */
  record ForkOrigin(String source, long seq, int partialBytes) {}

  /** Seqs {@code [seqStart, seqEnd)} at offsets from {@code offsetStart} of engine stream. */
  record Segment(long streamId, long seqStart, long seqEnd, long offsetStart) {
    static final long OPEN_END = Long.MAX_VALUE;

    long offsetOf(long seq) {
      return seq - seqStart + offsetStart;
    }
  }

  /** The highest epoch a producer used on this stream and the last seq accepted in it. */
  record ProducerState(long epoch, long lastSeq) {}

  /** The segment holding this stream's own records (always the last). */
  Segment own() {
    return segments.getLast();
  }

  /** Where this stream's own records begin. */
  long ownSeqStart() {
    return own().seqStart();
  }

  Registration withClosed(boolean value) {
    return new Registration(
        streamId,
        contentType,
        expiry,
        activityMillis,
        value,
        softDeleted,
        startSeq,
        forkRefs,
        fork,
        segments,
        writerSeq,
        producers,
        stampedThrough,
        tailTimestampMillis);
  }

  Registration withSoftDeleted() {
    return new Registration(
        streamId,
        contentType,
        expiry,
        activityMillis,
        closed,
        true,
        startSeq,
        forkRefs,
        fork,
        segments,
        writerSeq,
        producers,
        stampedThrough,
        tailTimestampMillis);
  }

  Registration withStartSeq(long value) {
    return new Registration(
        streamId,
        contentType,
        expiry,
        activityMillis,
        closed,
        softDeleted,
        value,
        forkRefs,
        fork,
        segments,
        writerSeq,
        producers,
        stampedThrough,
        tailTimestampMillis);
  }

  Registration withForkRefs(int value) {
    return new Registration(
        streamId,
        contentType,
        expiry,
        activityMillis,
        closed,
        softDeleted,
        startSeq,
        value,
        fork,
        segments,
        writerSeq,
        producers,
        stampedThrough,
        tailTimestampMillis);
  }

  Registration withActivity(long value) {
    return new Registration(
        streamId,
        contentType,
        expiry,
        value,
        closed,
        softDeleted,
        startSeq,
        forkRefs,
        fork,
        segments,
        writerSeq,
        producers,
        stampedThrough,
        tailTimestampMillis);
  }

  Registration withWriter(Optional<String> newWriterSeq, Map<String, ProducerState> newProducers) {
    return new Registration(
        streamId,
        contentType,
        expiry,
        activityMillis,
        closed,
        softDeleted,
        startSeq,
        forkRefs,
        fork,
        segments,
        newWriterSeq,
        newProducers,
        stampedThrough,
        tailTimestampMillis);
  }

  /**
   * With {@code value} as {@code stampedThrough}; the tail timestamp, which belongs to the old
   * position, is kept only if the position did not move.
   */
  Registration withStampedThrough(long value) {
    return new Registration(
        streamId,
        contentType,
        expiry,
        activityMillis,
        closed,
        softDeleted,
        startSeq,
        forkRefs,
        fork,
        segments,
        writerSeq,
        producers,
        value,
        value == stampedThrough ? tailTimestampMillis : UNKNOWN_TIMESTAMP);
  }

  /** With {@code value} as the timestamp of the record just below {@code stampedThrough}. */
  Registration withTailTimestamp(long value) {
    return new Registration(
        streamId,
        contentType,
        expiry,
        activityMillis,
        closed,
        softDeleted,
        startSeq,
        forkRefs,
        fork,
        segments,
        writerSeq,
        producers,
        stampedThrough,
        value);
  }

  byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeLong(streamId);
      out.writeUTF(contentType);
      switch (expiry) {
        case Expiry.Never never -> out.writeByte(0);
        case Expiry.Ttl ttl -> {
          out.writeByte(1);
          out.writeLong(ttl.seconds());
        }
        case Expiry.At at -> {
          out.writeByte(2);
          out.writeLong(at.instant().getEpochSecond());
          out.writeInt(at.instant().getNano());
        }
      }
      out.writeLong(activityMillis);
      out.writeBoolean(closed);
      out.writeBoolean(softDeleted);
      out.writeLong(startSeq);
      out.writeInt(forkRefs);
      out.writeBoolean(fork.isPresent());
      if (fork.isPresent()) {
        out.writeUTF(fork.get().source());
        out.writeLong(fork.get().seq());
        out.writeInt(fork.get().partialBytes());
      }
      out.writeInt(segments.size());
      for (Segment segment : segments) {
        out.writeLong(segment.streamId());
        out.writeLong(segment.seqStart());
        out.writeLong(segment.seqEnd());
        out.writeLong(segment.offsetStart());
      }
      out.writeBoolean(writerSeq.isPresent());
      if (writerSeq.isPresent()) {
        out.writeUTF(writerSeq.get());
      }
      // Sorted, so equal entries encode to equal bytes.
      TreeMap<String, ProducerState> sorted = new TreeMap<>(producers);
      out.writeInt(sorted.size());
      for (Map.Entry<String, ProducerState> producer : sorted.entrySet()) {
        out.writeUTF(producer.getKey());
        out.writeLong(producer.getValue().epoch());
        out.writeLong(producer.getValue().lastSeq());
      }
      out.writeLong(stampedThrough);
      if (tailTimestampMillis >= 0) {
        out.writeLong(tailTimestampMillis);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * @throws IllegalStateException for bytes this version cannot read, or values no node writes
   *     (counts past the bytes there are, no segment, negative positions): a damaged registry is a
   *     bug or broken storage, never a client error
   */
  static Registration decode(byte[] bytes) {
    try {
      return read(bytes);
    } catch (IOException | RuntimeException e) {
      // Whatever the damage (a short read, an instant out of range, a negative count), one type:
      // the service turns it into an unusable stream rather than a failed node.
      String what =
          e instanceof EOFException
              ? "it ends early"
              : e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
      throw new IllegalStateException("damaged registry entry: " + what, e);
    }
  }

  private static Registration read(byte[] bytes) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int version = in.readUnsignedByte();
      if (version != VERSION && version != 1) {
        throw new IllegalStateException("registry entry version " + version + " is unknown");
      }
      long streamId = in.readLong();
      String contentType = in.readUTF();
      Expiry expiry =
          switch (in.readUnsignedByte()) {
            case 0 -> Expiry.NEVER;
            case 1 -> new Expiry.Ttl(in.readLong());
            case 2 -> new Expiry.At(Instant.ofEpochSecond(in.readLong(), in.readInt()));
            default -> throw new IllegalStateException("unknown expiry kind");
          };
      long activity = in.readLong();
      boolean closed = in.readBoolean();
      boolean softDeleted = in.readBoolean();
      long startSeq = in.readLong();
      int forkRefs = in.readInt();
      Optional<ForkOrigin> fork =
          in.readBoolean()
              ? Optional.of(new ForkOrigin(in.readUTF(), in.readLong(), in.readInt()))
              : Optional.empty();
      // Each segment takes 32 bytes: a count past the bytes left is damage (and would otherwise
      // allocate whatever it says).
      int segmentCount = count(in.readInt(), in.available(), 32, "segments");
      if (segmentCount == 0) {
        throw new IllegalStateException("no segment");
      }
      List<Segment> segments = new ArrayList<>(segmentCount);
      for (int i = 0; i < segmentCount; i++) {
        segments.add(new Segment(in.readLong(), in.readLong(), in.readLong(), in.readLong()));
      }
      Optional<String> writerSeq = in.readBoolean() ? Optional.of(in.readUTF()) : Optional.empty();
      int producerCount = count(in.readInt(), in.available(), 18, "producers");
      Map<String, ProducerState> producers = new TreeMap<>();
      for (int i = 0; i < producerCount; i++) {
        producers.put(in.readUTF(), new ProducerState(in.readLong(), in.readLong()));
      }
      // A version 1 entry was written before batches carried stamps; replaying from 0 once finds
      // none and costs one scan, and is right should a newer node have stamped batches since.
      long stampedThrough = version == 1 ? 0 : in.readLong();
      long tailTimestamp = in.available() >= Long.BYTES ? in.readLong() : UNKNOWN_TIMESTAMP;
      if (streamId < 0
          || startSeq < 0
          || forkRefs < 0
          || stampedThrough < 0
          || tailTimestamp < UNKNOWN_TIMESTAMP) {
        throw new IllegalStateException(
            "negative field: streamId "
                + streamId
                + ", startSeq "
                + startSeq
                + ", forkRefs "
                + forkRefs
                + ", stampedThrough "
                + stampedThrough
                + ", tailTimestamp "
                + tailTimestamp);
      }
      return new Registration(
          streamId,
          contentType,
          expiry,
          activity,
          closed,
          softDeleted,
          startSeq,
          forkRefs,
          fork,
          segments,
          writerSeq,
          producers,
          stampedThrough,
          tailTimestamp);
    }
  }

  /** A stored count of items of at least {@code itemBytes} each, checked against what is left. */
  private static int count(int count, int bytesLeft, int itemBytes, String what) {
    if (count < 0 || (long) count * itemBytes > bytesLeft) {
      throw new IllegalStateException(
          count + " " + what + " cannot fit in the " + bytesLeft + " bytes left");
    }
    return count;
  }
}
