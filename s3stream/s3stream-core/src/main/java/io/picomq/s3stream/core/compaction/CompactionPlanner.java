package io.picomq.s3stream.core.compaction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Decides how to compact a node's stream-set objects: which blocks move into stream objects of
 * their own, which merge into one new stream-set object, and in how many rounds, so that no round
 * reads more than the cache size. Pure and deterministic: the same objects, stream starts, excluded
 * streams and limits give the same plan, whatever order the objects come in. The upstream vectors
 * ({@code upstream/compaction/plans.json}) pin its decisions; {@code
 * s3stream/specification/compaction.md} explains them with a worked example.
 *
 * <p>The steps:
 *
 * <ol>
 *   <li>Hold out every object that holds a block of an excluded stream: its data stays where it is.
 *   <li>Drop dead blocks: those of a deleted stream or ending at or before the stream's start.
 *   <li>Select the objects worth compacting: those sharing a stream with another candidate (merging
 *       them brings the stream's data together), and those holding dead bytes (rewriting them frees
 *       space, including an object a trim left straddling a stream's start).
 *   <li>Walk the live blocks of the selected objects in (stream id, start offset) order and group
 *       them: a stream's run of contiguous blocks becomes a stream object if it is larger than
 *       {@code streamSplitSize}, or if the stream's next block leaves a gap (a stream-set object
 *       holds one range per stream); every other run joins the stream-set object.
 *   <li>If that needs more stream objects or more streams in the stream-set object than the limits
 *       allow, hold out the objects of the cheapest group to give up and group again.
 *   <li>Cut the groups, in order, into rounds that fit the cache size, splitting a group between
 *       two rounds where it does not fit whole.
 * </ol>
 *
 * <p>Where we differ from the upstream (none of it shows in the vectors): step 1 and the dead-data
 * half of steps 2 and 3 are ours (the upstream filters trimmed blocks before planning and never
 * picks an object for its dead bytes alone); after holding objects out we select again from the
 * rest, so an object that no longer shares a stream is left alone; ties between streams to give up
 * go to the lowest stream id; a lone block larger than the cache size gets a round of its own
 * (upstream loops forever); and overlapping blocks of a stream are rejected with an exception.
 */
public final class CompactionPlanner {

  private static final Comparator<SourceBlock> STREAM_ORDER =
      Comparator.comparingLong(SourceBlock::streamId)
          .thenComparingLong(SourceBlock::startOffset)
          .thenComparingLong(SourceBlock::objectId);

  private final CompactionLimits limits;

  public CompactionPlanner(CompactionLimits limits) {
    this.limits = Objects.requireNonNull(limits, "limits");
  }

  /**
   * Plans one compaction.
   *
   * @param objects the candidate stream-set objects, each once
   * @param starts where each stream's live data begins
   * @param excludedStreams streams whose data must not move now; objects holding them are held out
   * @return the plan; {@link CompactionPlan#isEmpty()} if there is nothing worth doing
   * @throws IllegalArgumentException if an object id repeats, or two live blocks of a stream
   *     overlap (the same offsets stored twice)
   */
  public CompactionPlan plan(
      List<SourceObject> objects, StreamStarts starts, Set<Long> excludedStreams) {
    Objects.requireNonNull(starts, "starts");
    Set<Long> excludedStreamIds = Set.copyOf(excludedStreams);
    Set<Long> excluded = new TreeSet<>();
    Map<Long, Candidate> candidates = new TreeMap<>();
    for (SourceObject object : objects) {
      Candidate candidate = Candidate.of(object, starts);
      if (candidates.containsKey(object.objectId()) || excluded.contains(object.objectId())) {
        throw new IllegalArgumentException("object " + object.objectId() + " offered twice");
      }
      if (object.blocks().stream().anyMatch(b -> excludedStreamIds.contains(b.streamId()))) {
        excluded.add(object.objectId());
      } else {
        candidates.put(object.objectId(), candidate);
      }
    }
    while (true) {
      List<Candidate> selected = worthCompacting(candidates.values());
      if (selected.isEmpty()) {
        return new CompactionPlan(List.of(), List.of(), List.copyOf(excluded));
      }
      List<Group> groups = group(liveBlocks(selected));
      Set<Long> toHoldOut = overLimits(groups);
      if (toHoldOut.isEmpty()) {
        List<Long> compacted = selected.stream().map(c -> c.objectId).sorted().toList();
        return new CompactionPlan(stage(groups), compacted, List.copyOf(excluded));
      }
      excluded.addAll(toHoldOut);
      toHoldOut.forEach(candidates::remove);
    }
  }

  /** A candidate object with its blocks sorted into live and dead. */
  private record Candidate(long objectId, List<SourceBlock> live, boolean holdsDeadBytes) {

    static Candidate of(SourceObject object, StreamStarts starts) {
      List<SourceBlock> live = new ArrayList<>();
      boolean dead = false;
      for (SourceBlock block : object.blocks()) {
        OptionalLong start = starts.startOffset(block.streamId());
        if (start.isEmpty() || block.endOffset() <= start.getAsLong()) {
          dead = true;
        } else {
          live.add(block);
          dead |= block.startOffset() < start.getAsLong();
        }
      }
      return new Candidate(object.objectId(), live, dead);
    }
  }

  /** Candidates sharing a live stream with another candidate, or holding dead bytes. */
  private static List<Candidate> worthCompacting(Iterable<Candidate> candidates) {
    Map<Long, Set<Long>> objectsOfStream = new HashMap<>();
    for (Candidate candidate : candidates) {
      for (SourceBlock block : candidate.live) {
        objectsOfStream
            .computeIfAbsent(block.streamId(), s -> new HashSet<>())
            .add(block.objectId());
      }
    }
    List<Candidate> selected = new ArrayList<>();
    for (Candidate candidate : candidates) {
      boolean shares =
          candidate.live.stream().anyMatch(b -> objectsOfStream.get(b.streamId()).size() > 1);
      if (shares || candidate.holdsDeadBytes) {
        selected.add(candidate);
      }
    }
    return selected;
  }

  private static List<SourceBlock> liveBlocks(List<Candidate> selected) {
    List<SourceBlock> blocks = new ArrayList<>();
    selected.forEach(c -> blocks.addAll(c.live));
    blocks.sort(STREAM_ORDER);
    return blocks;
  }

  /** Whether a group becomes a stream object or part of the stream-set object. */
  private enum Kind {
    SPLIT,
    COMPACT
  }

  /** Blocks that end up in one object (SPLIT) or in the stream-set object (COMPACT). */
  private record Group(Kind kind, List<SourceBlock> blocks) {

    Group {
      blocks = List.copyOf(blocks);
    }

    Set<Long> objectIds() {
      Set<Long> ids = new TreeSet<>();
      blocks.forEach(b -> ids.add(b.objectId()));
      return ids;
    }

    int streamCount() {
      return (int) blocks.stream().mapToLong(SourceBlock::streamId).distinct().count();
    }
  }

  /**
   * Groups blocks sorted by (stream, offset). The open COMPACT group collects runs of several
   * streams; the current stream's run is its tail. The run leaves the group as a SPLIT group when
   * the stream ends with more than {@code streamSplitSize} bytes in the run, or when the stream's
   * next block leaves a gap (whatever the run's size: the stream-set object can hold one range per
   * stream, so only the last run may stay). Whatever precedes the run in the open group is closed
   * as a COMPACT group first, so groups stay in (stream, offset) order.
   */
  private List<Group> group(List<SourceBlock> blocks) {
    List<Group> groups = new ArrayList<>();
    List<SourceBlock> open = new ArrayList<>();
    int runStart = 0;
    for (SourceBlock block : blocks) {
      if (!open.isEmpty()) {
        SourceBlock last = open.get(open.size() - 1);
        if (last.streamId() == block.streamId()) {
          if (block.startOffset() < last.endOffset()) {
            throw new IllegalArgumentException(
                "blocks of stream " + block.streamId() + " overlap: " + last + " and " + block);
          }
          if (block.startOffset() > last.endOffset()) {
            splitRun(open, runStart, groups);
            runStart = 0;
          }
        } else {
          if (runSize(open, runStart) > limits.streamSplitSizeBytes()) {
            splitRun(open, runStart, groups);
          }
          runStart = open.size();
        }
      }
      open.add(block);
    }
    if (runSize(open, runStart) > limits.streamSplitSizeBytes()) {
      splitRun(open, runStart, groups);
    } else if (!open.isEmpty()) {
      groups.add(new Group(Kind.COMPACT, open));
    }
    return groups;
  }

  private static long runSize(List<SourceBlock> open, int runStart) {
    return sizeOf(open.subList(runStart, open.size()));
  }

  private static long sizeOf(List<SourceBlock> blocks) {
    long size = 0;
    for (SourceBlock block : blocks) {
      size += block.sizeBytes();
    }
    return size;
  }

  /** Closes the open group: what precedes the run as COMPACT, the run as SPLIT. */
  private static void splitRun(List<SourceBlock> open, int runStart, List<Group> groups) {
    if (runStart > 0) {
      groups.add(new Group(Kind.COMPACT, open.subList(0, runStart)));
    }
    groups.add(new Group(Kind.SPLIT, open.subList(runStart, open.size())));
    open.clear();
  }

  /**
   * The objects to hold out so the next attempt needs fewer stream objects (checked first) or fewer
   * streams in the stream-set object; empty if the groups are within the limits.
   */
  private Set<Long> overLimits(List<Group> groups) {
    int streamObjects = 0;
    int streamsInSet = 0;
    for (Group group : groups) {
      if (group.kind == Kind.SPLIT) {
        streamObjects++;
      } else {
        streamsInSet += group.streamCount();
      }
    }
    if (streamObjects > limits.maxStreamObjectNum()) {
      return cheapestStreamObject(groups);
    }
    if (streamsInSet > limits.maxStreamNumInStreamSet()) {
      return cheapestStreamInSet(groups);
    }
    return Set.of();
  }

  /**
   * The source objects of the stream object to give up: the one made of the fewest blocks, then the
   * one whose source objects feed the fewest groups overall (the least entangled), then the first.
   */
  private static Set<Long> cheapestStreamObject(List<Group> groups) {
    Map<Long, Integer> groupsPerObject = new HashMap<>();
    for (Group group : groups) {
      group.objectIds().forEach(id -> groupsPerObject.merge(id, 1, Integer::sum));
    }
    Group cheapest = null;
    long cheapestCost = 0;
    for (Group group : groups) {
      if (group.kind != Kind.SPLIT) {
        continue;
      }
      long entanglement = 0;
      for (long id : group.objectIds()) {
        entanglement += groupsPerObject.get(id);
      }
      // Blocks first, entanglement second; both are far below 2^31.
      long cost = ((long) group.blocks.size() << 32) | entanglement;
      if (cheapest == null || cost < cheapestCost) {
        cheapest = group;
        cheapestCost = cost;
      }
    }
    return Objects.requireNonNull(cheapest, "over the stream object limit without one").objectIds();
  }

  /**
   * The source objects holding the stream to give up from the stream-set object: the stream whose
   * objects hold the fewest streams between them (counted per object, within the stream-set
   * object's groups), so holding them out costs the least; ties go to the lowest stream id.
   */
  private static Set<Long> cheapestStreamInSet(List<Group> groups) {
    Map<Long, Set<Long>> objectsOfStream = new TreeMap<>();
    Map<Long, Set<Long>> streamsOfObject = new HashMap<>();
    for (Group group : groups) {
      if (group.kind != Kind.COMPACT) {
        continue;
      }
      for (SourceBlock block : group.blocks) {
        objectsOfStream
            .computeIfAbsent(block.streamId(), s -> new TreeSet<>())
            .add(block.objectId());
        streamsOfObject
            .computeIfAbsent(block.objectId(), o -> new HashSet<>())
            .add(block.streamId());
      }
    }
    Set<Long> cheapest = null;
    long cheapestCost = Long.MAX_VALUE;
    for (Set<Long> objectIds : objectsOfStream.values()) {
      long cost = 0;
      for (long id : objectIds) {
        cost += streamsOfObject.get(id).size();
      }
      if (cost < cheapestCost) {
        cheapest = objectIds;
        cheapestCost = cost;
      }
    }
    return Objects.requireNonNull(cheapest, "over the stream limit without a stream");
  }

  /**
   * Cuts the groups, in order, into rounds of at most the cache size. A group that does not fit in
   * the current round contributes its longest prefix that does, and the rest starts the next round.
   */
  private List<CompactionRound> stage(List<Group> groups) {
    List<CompactionRound> rounds = new ArrayList<>();
    RoundBuilder round = new RoundBuilder();
    for (Group group : groups) {
      List<SourceBlock> rest = group.blocks;
      while (!rest.isEmpty()) {
        if (round.sizeBytes + sizeOf(rest) <= limits.cacheSizeBytes()) {
          round.add(group.kind, rest);
          break;
        }
        int fit = 0;
        long size = round.sizeBytes;
        while (size + rest.get(fit).sizeBytes() <= limits.cacheSizeBytes()) {
          size += rest.get(fit).sizeBytes();
          fit++;
        }
        if (fit == 0 && round.isEmpty()) {
          fit = 1; // a block larger than the cache: read alone
        }
        round.add(group.kind, rest.subList(0, fit));
        rest = rest.subList(fit, rest.size());
        rounds.add(round.build(rounds.size()));
        round = new RoundBuilder();
      }
    }
    if (!round.isEmpty()) {
      rounds.add(round.build(rounds.size()));
    }
    return rounds;
  }

  /** The round being filled: its stream objects in order, and its stream-set object part. */
  private static final class RoundBuilder {
    private final List<PlannedObject> splits = new ArrayList<>();
    private final List<SourceBlock> compact = new ArrayList<>();
    private long sizeBytes;

    void add(Kind kind, List<SourceBlock> blocks) {
      if (blocks.isEmpty()) {
        return;
      }
      if (kind == Kind.SPLIT) {
        splits.add(new PlannedObject.Split(blocks));
      } else {
        compact.addAll(blocks);
      }
      sizeBytes += sizeOf(blocks);
    }

    boolean isEmpty() {
      return splits.isEmpty() && compact.isEmpty();
    }

    CompactionRound build(int order) {
      List<PlannedObject> objects = new ArrayList<>(splits);
      if (!compact.isEmpty()) {
        objects.add(new PlannedObject.Compact(compact));
      }
      return new CompactionRound(order, objects);
    }
  }
}
