package io.picomq.meta;

import io.picomq.meta.command.Command;
import io.picomq.meta.command.CommandSamples;
import io.picomq.meta.command.CommittedRange;
import io.picomq.meta.command.NewStreamObject;
import io.picomq.meta.state.CatalogObject;
import io.picomq.meta.state.CatalogRange;
import io.picomq.meta.state.CatalogStreamObject;
import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.MetadataState;
import io.picomq.meta.state.NodeRecord;
import io.picomq.meta.state.PendingTransfer;
import io.picomq.meta.state.RangeLocation;
import io.picomq.meta.state.StreamEntry;
import io.picomq.meta.state.StreamSetObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Turns random numbers into a plausible command sequence: each command is built from the state the
 * previous ones produced (open a stream that exists, commit at its end offset with a prepared id,
 * compact objects that are there), with deliberate mistakes mixed in (stale epochs, gaps, missing
 * sources) and fully random commands now and then. A purely random sequence would be refused almost
 * entirely and prove little.
 *
 * <p>The sequence is fixed once built; the properties replay it on fresh states.
 */
final class Scenario {

  private final Random random;
  private final List<Command> history = new ArrayList<>();
  private MetadataState state = MetadataState.empty();

  private Scenario(long seed) {
    this.random = new Random(seed);
  }

  /** {@code length} commands built from {@code seed}. */
  static List<Command> commands(long seed, int length) {
    Scenario scenario = new Scenario(seed);
    List<Command> commands = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      Command command = scenario.next();
      commands.add(command);
      scenario.history.add(command);
      scenario.state = MetadataMachine.apply(scenario.state, command).state();
    }
    return commands;
  }

  private Command next() {
    if (!history.isEmpty() && random.nextInt(20) == 0) {
      // A retry: proposers repeat a command whose outcome they did not see.
      return history.get(Math.max(0, history.size() - 1 - random.nextInt(5)));
    }
    int dice = random.nextInt(100);
    if (dice < 6) {
      return register();
    } else if (dice < 8) {
      return new Command.SetNodeSlots(random.nextInt(4), random.nextInt(3));
    } else if (dice < 14) {
      return random.nextBoolean()
          ? new Command.CreateStream()
          : new Command.CreateStreams(1 + random.nextInt(3));
    } else if (dice < 17) {
      return new Command.PlaceStream(streamId());
    } else if (dice < 27) {
      return open();
    } else if (dice < 32) {
      return close();
    } else if (dice < 37) {
      return trim();
    } else if (dice < 39) {
      return new Command.DeleteStream(streamId());
    } else if (dice < 47) {
      return new Command.PrepareObjects(1 + random.nextInt(4), random.nextInt(100));
    } else if (dice < 65) {
      return commitNewData();
    } else if (dice < 71) {
      return compactStreamSetObjects();
    } else if (dice < 76) {
      return compactStreamObjects();
    } else if (dice < 79) {
      return new Command.ExpirePreparedObjects(random.nextInt(120));
    } else if (dice < 83) {
      return clean();
    } else if (dice < 88) {
      return kv();
    } else if (dice < 92) {
      return new Command.TransferStream(streamId(), random.nextInt(3));
    } else if (dice < 96) {
      return completeTransfer();
    }
    return CommandSamples.random(random);
  }

  private Command register() {
    int nodeId = random.nextInt(3);
    NodeRecord known = state.nodes().get(nodeId);
    long epoch = known == null ? 1 + random.nextInt(3) : known.nodeEpoch() + random.nextInt(4) - 1;
    return new Command.RegisterNode(
        nodeId, Math.max(0, epoch), "node-" + random.nextInt(2), random.nextInt(3));
  }

  /** Mostly an existing stream, sometimes a deleted or never-allocated id. */
  private long streamId() {
    if (!state.streams().isEmpty() && random.nextInt(5) > 0) {
      List<Long> ids = new ArrayList<>(state.streams().keySet());
      return ids.get(random.nextInt(ids.size()));
    }
    return random.nextInt((int) Math.min(state.nextStreamId() + 2, 1_000));
  }

  /** The registered epoch of a node, sometimes an older or newer one. */
  private long nodeEpoch(int nodeId) {
    NodeRecord node = state.nodes().get(nodeId);
    long epoch = node == null ? 1 : node.nodeEpoch();
    return switch (random.nextInt(10)) {
      case 0 -> Math.max(0, epoch - 1);
      case 1 -> epoch + 1;
      default -> epoch;
    };
  }

  /** The stream's node (when it has one) most of the time, any node otherwise. */
  private int nodeFor(StreamEntry stream) {
    if (stream != null && stream.isPlaced() && random.nextInt(4) > 0) {
      return stream.nodeId();
    }
    return random.nextInt(3);
  }

  private Command open() {
    long streamId = streamId();
    int nodeId = nodeFor(state.streams().get(streamId));
    return new Command.OpenStream(streamId, nodeId, nodeEpoch(nodeId));
  }

  private Command close() {
    if (!state.pendingTransfers().isEmpty() && random.nextBoolean()) {
      // The source of a transfer closes the stream so that the handoff can complete.
      PendingTransfer transfer = state.pendingTransfers().firstEntry().getValue();
      return new Command.CloseStream(
          transfer.streamId(),
          transfer.epoch(),
          transfer.fromNodeId(),
          nodeEpoch(transfer.fromNodeId()));
    }
    long streamId = streamId();
    StreamEntry stream = state.streams().get(streamId);
    int nodeId = nodeFor(stream);
    long epoch = stream == null ? 0 : stream.epoch() + (random.nextInt(6) == 0 ? 1 : 0);
    return new Command.CloseStream(streamId, epoch, nodeId, nodeEpoch(nodeId));
  }

  private Command trim() {
    long streamId = streamId();
    StreamEntry stream = state.streams().get(streamId);
    if (stream == null) {
      return new Command.TrimStream(streamId, 0, random.nextInt(10));
    }
    long epoch = stream.epoch() + (random.nextInt(8) == 0 ? 1 : 0);
    long span = stream.endOffset() - stream.startOffset();
    return new Command.TrimStream(
        streamId, epoch, stream.startOffset() + random.nextLong(span + 2));
  }

  /** Prepared ids to use, lowest first; when too few are prepared, the next unprepared ones. */
  private List<Long> objectIds(int count) {
    List<Long> ids = new ArrayList<>();
    for (long id : state.preparedObjects().keySet()) {
      if (ids.size() == count) {
        break;
      }
      ids.add(id);
    }
    for (long id = state.nextObjectId(); ids.size() < count; id++) {
      ids.add(id);
    }
    return ids;
  }

  /**
   * New data for up to three streams of one node, at each stream's end offset (sometimes one record
   * off), some of it as stream objects.
   */
  private Command commitNewData() {
    int nodeId = random.nextInt(3);
    List<StreamEntry> owned = new ArrayList<>();
    for (StreamEntry stream : state.streams().values()) {
      if (stream.nodeId() == nodeId && stream.isOpen()) {
        owned.add(stream);
      }
    }
    if (owned.isEmpty() && !state.streams().isEmpty()) {
      StreamEntry any = state.streams().get(streamId());
      owned.add(any == null ? state.streams().firstEntry().getValue() : any);
    }
    if (owned.isEmpty()) {
      return new Command.CreateStream();
    }
    List<StreamEntry> chosen = new ArrayList<>();
    for (int i = 1 + random.nextInt(3); i > 0 && !owned.isEmpty(); i--) {
      chosen.add(owned.remove(random.nextInt(owned.size())));
    }
    List<CommittedRange> ranges = new ArrayList<>();
    List<long[]> streamObjects = new ArrayList<>(); // streamId, epoch, start, end
    for (StreamEntry stream : chosen) {
      long start = stream.endOffset() + (random.nextInt(12) == 0 ? random.nextInt(3) - 1 : 0);
      start = Math.max(0, start);
      long end = start + 1 + random.nextInt(5);
      long epoch = Math.max(0, stream.epoch() + (random.nextInt(15) == 0 ? -1 : 0));
      if (random.nextInt(3) == 0) {
        streamObjects.add(new long[] {stream.streamId(), epoch, start, end});
      } else {
        ranges.add(new CommittedRange(stream.streamId(), epoch, start, end));
      }
    }
    ranges.sort(null);
    int objectCount = (ranges.isEmpty() ? 0 : 1) + streamObjects.size();
    List<Long> ids = objectIds(objectCount);
    long setId = ranges.isEmpty() ? Command.CommitStreamSetObject.NO_OBJECT : ids.get(0);
    List<NewStreamObject> objects = new ArrayList<>();
    int next = ranges.isEmpty() ? 0 : 1;
    for (long[] object : streamObjects) {
      objects.add(
          new NewStreamObject(
              ids.get(next++), object[0], object[1], object[2], object[3], 100 + object[3]));
    }
    return new Command.CommitStreamSetObject(
        setId, nodeId, nodeEpoch(nodeId), ranges.isEmpty() ? 0 : 1000, ranges, objects, List.of());
  }

  /**
   * Replaces one or two stream-set objects by one holding their live ranges merged per stream;
   * sometimes one range is left out, which must be refused.
   */
  private Command compactStreamSetObjects() {
    List<StreamSetObject> sets = new ArrayList<>();
    for (CatalogObject object : state.catalog().objects().values()) {
      if (object instanceof StreamSetObject set) {
        sets.add(set);
      }
    }
    if (sets.isEmpty()) {
      return CommandSamples.ofType(10, random);
    }
    List<StreamSetObject> sources = new ArrayList<>();
    for (int i = 1 + random.nextInt(2); i > 0 && !sets.isEmpty(); i--) {
      sources.add(sets.remove(random.nextInt(sets.size())));
    }
    TreeMap<Long, List<CatalogRange>> byStream = new TreeMap<>();
    for (StreamSetObject source : sources) {
      for (CatalogRange range : source.ranges()) {
        byStream.computeIfAbsent(range.streamId(), id -> new ArrayList<>()).add(range);
      }
    }
    List<CommittedRange> ranges = new ArrayList<>();
    for (Map.Entry<Long, List<CatalogRange>> entry : byStream.entrySet()) {
      List<CatalogRange> sorted = new ArrayList<>(entry.getValue());
      sorted.sort(null);
      long epoch = Math.max(0, state.streams().get(entry.getKey()).epoch());
      long start = sorted.get(0).startOffset();
      long end = sorted.get(0).endOffset();
      for (CatalogRange range : sorted.subList(1, sorted.size())) {
        if (range.startOffset() == end) {
          end = range.endOffset();
        } else {
          ranges.add(new CommittedRange(entry.getKey(), epoch, start, end));
          start = range.startOffset();
          end = range.endOffset();
        }
      }
      ranges.add(new CommittedRange(entry.getKey(), epoch, start, end));
    }
    if (ranges.size() > 1 && random.nextInt(6) == 0) {
      ranges.remove(random.nextInt(ranges.size()));
    }
    int nodeId = random.nextInt(3);
    return new Command.CommitStreamSetObject(
        objectIds(1).get(0),
        nodeId,
        nodeEpoch(nodeId),
        2000,
        ranges,
        List.of(),
        sources.stream().map(StreamSetObject::objectId).toList());
  }

  /** Merges a run of adjacent stream objects of a stream, when one exists. */
  private Command compactStreamObjects() {
    List<List<RangeLocation>> runs = new ArrayList<>();
    for (long streamId : state.streams().keySet()) {
      List<RangeLocation> run = new ArrayList<>();
      for (RangeLocation location : state.catalog().ranges(streamId)) {
        if (state.catalog().object(location.objectId()).orElseThrow()
            instanceof CatalogStreamObject) {
          run.add(location);
        } else {
          if (run.size() >= 2) {
            runs.add(run);
          }
          run = new ArrayList<>();
        }
      }
      if (run.size() >= 2) {
        runs.add(run);
      }
    }
    if (runs.isEmpty()) {
      return CommandSamples.ofType(11, random);
    }
    List<RangeLocation> run = runs.get(random.nextInt(runs.size()));
    int from = random.nextInt(run.size() - 1);
    int to = from + 2 + random.nextInt(run.size() - from - 1);
    List<RangeLocation> sources = run.subList(from, to);
    CatalogStreamObject first =
        (CatalogStreamObject) state.catalog().object(sources.get(0).objectId()).orElseThrow();
    long end = sources.get(sources.size() - 1).endOffset();
    if (random.nextInt(8) == 0) {
      end++; // must be refused
    }
    int nodeId = random.nextInt(3);
    return new Command.CompactStreamObjects(
        objectIds(1).get(0),
        first.streamId(),
        first.startOffset(),
        end,
        500,
        sources.stream().map(RangeLocation::objectId).toList(),
        nodeId,
        nodeEpoch(nodeId));
  }

  private Command clean() {
    List<Long> ids = new ArrayList<>();
    for (long id : state.destructionQueue()) {
      if (ids.size() == 2) {
        break;
      }
      ids.add(id);
    }
    if (random.nextInt(5) == 0 && !state.catalog().objects().isEmpty()) {
      long live = state.catalog().objects().firstKey();
      if (!ids.contains(live)) {
        ids.add(live); // must be refused
      }
    }
    if (ids.isEmpty()) {
      ids.add((long) random.nextInt(50));
    }
    return new Command.CleanDestroyedObjects(ids);
  }

  private Command kv() {
    String key = "names/" + random.nextInt(4);
    KvValue value = KvValue.of(new byte[] {(byte) random.nextInt(3)});
    return switch (random.nextInt(3)) {
      case 0 -> new Command.KvPut(key, value);
      case 1 -> new Command.KvPutIfAbsent(key, value);
      default -> new Command.KvDelete(key);
    };
  }

  private Command completeTransfer() {
    if (!state.pendingTransfers().isEmpty() && random.nextInt(4) > 0) {
      // Prefer a handoff whose source has closed the stream: that one can complete.
      List<PendingTransfer> pending = new ArrayList<>(state.pendingTransfers().values());
      PendingTransfer transfer = pending.get(random.nextInt(pending.size()));
      for (PendingTransfer candidate : pending) {
        if (!state.streams().get(candidate.streamId()).isOpen()) {
          transfer = candidate;
        }
      }
      return new Command.CompleteTransfer(transfer.streamId(), transfer.epoch());
    }
    long streamId = streamId();
    StreamEntry stream = state.streams().get(streamId);
    return new Command.CompleteTransfer(streamId, stream == null ? 0 : Math.max(0, stream.epoch()));
  }
}
