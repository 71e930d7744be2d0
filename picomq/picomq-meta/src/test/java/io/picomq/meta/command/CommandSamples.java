package io.picomq.meta.command;

import io.picomq.meta.state.KvValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random well-formed commands of every type, from a seeded {@link Random} so a failing case can be
 * rebuilt from its seed. Values are small half of the time (so they hit real streams and nodes when
 * applied) and anywhere in their legal range otherwise (so the codec sees extreme values).
 */
public final class CommandSamples {

  /** How many command types exist; {@link #random} draws each equally often. */
  public static final int TYPES = 22;

  private CommandSamples() {}

  public static Command random(Random random) {
    return ofType(random.nextInt(TYPES), random);
  }

  public static Command ofType(int type, Random random) {
    boolean small = random.nextBoolean();
    return switch (type) {
      case 0 ->
          new Command.RegisterNode(
              node(random, small),
              epoch(random, small),
              text(random),
              random.nextInt(Command.MAX_SLOTS + 1));
      case 1 ->
          new Command.SetNodeSlots(node(random, small), random.nextInt(Command.MAX_SLOTS + 1));
      case 2 -> new Command.PlaceStream(id(random, small));
      case 3 -> new Command.CreateStream();
      case 4 -> new Command.CreateStreams(1 + random.nextInt(Command.MAX_BATCH));
      case 5 ->
          new Command.OpenStream(id(random, small), node(random, small), epoch(random, small));
      case 6 ->
          new Command.TrimStream(id(random, small), epoch(random, small) - 1, id(random, small));
      case 7 ->
          new Command.CloseStream(
              id(random, small),
              epoch(random, small) - 1,
              node(random, small),
              epoch(random, small));
      case 8 -> new Command.DeleteStream(id(random, small));
      case 9 ->
          new Command.PrepareObjects(
              1 + random.nextInt(small ? 4 : Command.MAX_BATCH), random.nextLong());
      case 10 -> commit(random, small);
      case 11 -> {
        long start = id(random, small) / 2;
        yield new Command.CompactStreamObjects(
            1000 + random.nextInt(1000),
            id(random, small),
            start,
            start + 1 + random.nextInt(100),
            random.nextInt(1 << 20),
            List.of((long) random.nextInt(1000), 2000L + random.nextInt(1000)),
            node(random, small),
            epoch(random, small));
      }
      case 12 -> new Command.ExpirePreparedObjects(random.nextLong());
      case 13 -> new Command.CleanDestroyedObjects(ids(random, 1 + random.nextInt(5)));
      case 14 -> new Command.KvPut(text(random), value(random));
      case 15 -> new Command.KvPutIfAbsent(text(random), value(random));
      case 16 -> new Command.KvDelete(text(random));
      case 17 -> new Command.TransferStream(id(random, small), node(random, small));
      case 18 -> new Command.CompleteTransfer(id(random, small), epoch(random, small));
      case 19 -> {
        int node = node(random, small);
        yield new Command.TakeOverNode(node, epoch(random, small), node + 1, epoch(random, small));
      }
      case 20 -> new Command.CancelTransfer(id(random, small));
      case 21 ->
          new Command.CloseStream(
              id(random, small),
              epoch(random, small) - 1,
              node(random, small),
              epoch(random, small),
              id(random, small));
      default -> throw new IllegalArgumentException("no command type " + type);
    };
  }

  private static Command commit(Random random, boolean small) {
    List<CommittedRange> ranges = new ArrayList<>();
    long streamId = random.nextInt(small ? 4 : 1 << 20);
    long offset = random.nextInt(50);
    for (int i = random.nextInt(4); i > 0; i--) {
      long end = offset + 1 + random.nextInt(20);
      ranges.add(new CommittedRange(streamId, random.nextInt(3), offset, end));
      streamId += 1 + random.nextInt(3);
      offset = random.nextInt(50);
    }
    List<NewStreamObject> objects = new ArrayList<>();
    for (int i = ranges.isEmpty() ? 1 : random.nextInt(3); i > 0; i--) {
      long start = random.nextInt(50);
      objects.add(
          new NewStreamObject(
              100 + i,
              random.nextInt(4),
              random.nextInt(3),
              start,
              start + 1 + random.nextInt(20),
              random.nextInt(1 << 16)));
    }
    long objectId =
        ranges.isEmpty() ? Command.CommitStreamSetObject.NO_OBJECT : 1 + random.nextInt(99);
    List<Long> compacted = random.nextInt(3) == 0 ? ids(random, 1 + random.nextInt(3)) : List.of();
    return new Command.CommitStreamSetObject(
        objectId,
        node(random, small),
        epoch(random, small),
        ranges.isEmpty() ? 0 : random.nextInt(1 << 20),
        ranges,
        objects,
        compacted);
  }

  /** Ids from 500 up, so they never collide with the object ids {@link #commit} creates. */
  private static List<Long> ids(Random random, int count) {
    List<Long> ids = new ArrayList<>();
    long next = 500 + random.nextInt(10);
    for (int i = 0; i < count; i++) {
      ids.add(next);
      next += 1 + random.nextInt(10);
    }
    return ids;
  }

  private static int node(Random random, boolean small) {
    return small ? random.nextInt(3) : random.nextInt(Integer.MAX_VALUE);
  }

  private static long epoch(Random random, boolean small) {
    return small ? random.nextInt(4) : random.nextLong(Long.MAX_VALUE);
  }

  private static long id(Random random, boolean small) {
    return small ? random.nextInt(6) : random.nextLong(Long.MAX_VALUE);
  }

  /** Short text, sometimes beyond ASCII (2-, 3- and 4-byte UTF-8 sequences). */
  private static String text(Random random) {
    String[] pieces = {"a", "stream/", "é", "名", "😀", "-", "0"};
    StringBuilder text = new StringBuilder(pieces[random.nextInt(pieces.length)]);
    for (int i = random.nextInt(6); i > 0; i--) {
      text.append(pieces[random.nextInt(pieces.length)]);
    }
    return text.toString();
  }

  private static KvValue value(Random random) {
    byte[] bytes = new byte[random.nextInt(40)];
    random.nextBytes(bytes);
    return KvValue.of(bytes);
  }
}
