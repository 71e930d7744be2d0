package io.picomq.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.meta.state.KvValue;
import io.picomq.meta.state.StreamEntry;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.metadata.NodeIdentity;
import io.picomq.server.service.Registration.Segment;
import io.picomq.stream.Expiry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which streams this node opens as they arrive, against a real metadata log (SQLite). Node 1 is
 * this process; node 2 is another node's process, played by commands proposed on its behalf. The
 * service's open is played by an {@link Arrivals.Opener} that records the names.
 */
class ArrivalsTest {
  private static final long EPOCH = 10;
  private static final long OTHER_EPOCH = 20;
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;
  private MetadataPlane plane;
  private Arrivals arrivals;
  private final List<String> opened = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    plane =
        MetadataPlane.open(
            "sqlite:" + dir.resolve("meta.db"),
            new NodeIdentity(1, EPOCH, "http://127.0.0.1:1", 1),
            Clock.systemUTC());
    plane.start();
    propose(new Command.RegisterNode(2, OTHER_EPOCH, "http://127.0.0.1:2", 1));
  }

  @AfterEach
  void stop() {
    if (arrivals != null) {
      arrivals.close();
    }
    plane.close();
  }

  private void startArrivals(Arrivals.Opener opener) {
    arrivals = new Arrivals(plane, LivenessGate.ALWAYS_OPEN, opener);
    arrivals.start();
  }

  private Outcome propose(Command command) {
    return plane.proposeAccepted(command).join();
  }

  /** A named stream, open on {@code nodeId}'s process {@code nodeEpoch}. */
  private long openStream(String name, int nodeId, long nodeEpoch) {
    long id = ((Outcome.StreamsCreated) propose(new Command.CreateStream())).firstStreamId();
    Registration entry =
        new Registration(
            id,
            "text/plain",
            Expiry.NEVER,
            0,
            false,
            false,
            0,
            0,
            Optional.empty(),
            List.of(new Segment(id, 0, Segment.OPEN_END, 0)),
            Optional.empty(),
            Map.of(),
            0);
    propose(new Command.KvPut(Registry.key(name), KvValue.of(entry.encode())));
    propose(new Command.OpenStream(id, nodeId, nodeEpoch));
    return id;
  }

  private StreamEntry stream(long id) {
    return plane.state().stream(id).orElseThrow();
  }

  /** Node 2 hands {@code id} off to {@code toNode}: transfer, close, completion. */
  private void transferFromNode2(long id, int toNode) {
    propose(new Command.TransferStream(id, toNode));
    long epoch = stream(id).epoch();
    propose(new Command.CloseStream(id, epoch, 2, OTHER_EPOCH));
    propose(new Command.CompleteTransfer(id, epoch));
  }

  private void awaitOpened(String name) {
    Awaitility.await(name + " opened").atMost(WAIT).until(() -> opened.contains(name));
  }

  @Test
  void aStreamWhoseTransferHereCompletedIsOpenedWithoutARequest() {
    startArrivals(opened::add);
    long id = openStream("/moved", 2, OTHER_EPOCH);

    transferFromNode2(id, 1);

    awaitOpened("/moved");
    assertThat(opened).containsExactly("/moved");
  }

  @Test
  void streamsThatWereNotOpenElsewhereOrWentElsewhereAreLeftAlone() {
    startArrivals(opened::add);
    // Leaves this node: its target opens it, not this node.
    long leaving = openStream("/leaving", 1, EPOCH);
    propose(new Command.TransferStream(leaving, 2));
    long epoch = stream(leaving).epoch();
    propose(new Command.CloseStream(leaving, epoch, 1, EPOCH));
    propose(new Command.CompleteTransfer(leaving, epoch));
    // A transfer here, withdrawn: the stream stays open on node 2.
    long stays = openStream("/stays", 2, OTHER_EPOCH);
    propose(new Command.TransferStream(stays, 1));
    propose(new Command.CancelTransfer(stays));
    // Closed on node 2 and moved here at once: it was not open, so nothing to keep open.
    long idle = openStream("/idle", 2, OTHER_EPOCH);
    propose(new Command.CloseStream(idle, stream(idle).epoch(), 2, OTHER_EPOCH));
    propose(new Command.TransferStream(idle, 1));
    // Then one that does arrive: once it is opened, every event above was looked at.
    long moved = openStream("/moved", 2, OTHER_EPOCH);
    transferFromNode2(moved, 1);

    awaitOpened("/moved");
    assertThat(opened).containsExactly("/moved");
    assertThat(stream(idle).nodeId()).isEqualTo(1);
  }

  @Test
  void aStreamPlacedHereAfterItsNodeWasTakenOverIsOpenedWithoutARequest() {
    startArrivals(opened::add);
    long orphan = openStream("/orphan", 2, OTHER_EPOCH);
    long idle = openStream("/idle", 2, OTHER_EPOCH);
    propose(new Command.CloseStream(idle, stream(idle).epoch(), 2, OTHER_EPOCH));

    // What Failover does: take the process over, close what it had open, place it again.
    propose(new Command.TakeOverNode(2, OTHER_EPOCH, 1, EPOCH));
    propose(new Command.CloseStream(orphan, stream(orphan).epoch(), 1, EPOCH));
    propose(new Command.PlaceStream(orphan));
    propose(new Command.PlaceStream(idle));

    awaitOpened("/orphan");
    assertThat(stream(orphan).nodeId()).isEqualTo(1);
    assertThat(stream(idle).nodeId()).isEqualTo(1);
    assertThat(opened).containsExactly("/orphan"); // the idle one was closed before
  }

  @Test
  void aDrainHereOpensAFewStreamsAtATime() {
    int streams = 3 * Arrivals.MAX_OPENS;
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    startArrivals(
        name -> {
          mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            running.decrementAndGet();
            opened.add(name);
          }
        });
    for (int i = 0; i < streams; i++) {
      transferFromNode2(openStream("/drained/" + i, 2, OTHER_EPOCH), 1);
    }

    Awaitility.await("the first opens under way, and no more")
        .during(Duration.ofMillis(300))
        .atMost(WAIT)
        .until(() -> running.get() == Arrivals.MAX_OPENS);
    release.countDown();

    Awaitility.await("every drained stream opened")
        .atMost(WAIT)
        .until(() -> opened.size() == streams);
    assertThat(mostAtOnce.get()).isEqualTo(Arrivals.MAX_OPENS);
  }

  @Test
  void anOpenThatFailsIsLeftToTheFirstRequestAndOthersGoOn() {
    startArrivals(
        name -> {
          if (name.equals("/failing")) {
            throw new IllegalStateException("storage is away");
          }
          opened.add(name);
        });
    transferFromNode2(openStream("/failing", 2, OTHER_EPOCH), 1);
    transferFromNode2(openStream("/fine", 2, OTHER_EPOCH), 1);

    awaitOpened("/fine");
    assertThat(opened).containsExactly("/fine");
  }
}
