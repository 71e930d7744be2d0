package io.picomq.server.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.OrphanedStreams;
import io.picomq.s3stream.api.StreamMetadata;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the engine's takeover of a dead node's WAL is told about that node's streams, against a real
 * metadata log (SQLite). This node is node 1; node 3's process at epoch 1 died with a stream open
 * and node 1 took it over.
 *
 * <p>Found by the chaos test: node 3's next process registered while node 1's takeover ran, the
 * takeover was told "nothing open" after fencing, reset the WAL, and the new process then found no
 * records to recover; its streams were closed short of what they had acknowledged.
 */
class TakenOverStreamsTest {
  private static final long EPOCH = 10;
  private static final long DEAD_EPOCH = 1;

  @TempDir Path dir;
  private MetadataPlane plane;
  private long streamId;
  private OrphanedStreams orphans;

  @BeforeEach
  void takeOverNode3() throws Exception {
    plane =
        MetadataPlane.open(
            "sqlite:" + dir.resolve("meta.db"),
            new NodeIdentity(1, EPOCH, "http://127.0.0.1:1", 1),
            Clock.systemUTC());
    plane.start();
    plane.proposeAccepted(new Command.RegisterNode(2, EPOCH, "http://127.0.0.1:2", 1)).join();
    plane.proposeAccepted(new Command.RegisterNode(3, DEAD_EPOCH, "http://127.0.0.1:3", 1)).join();
    streamId =
        ((Outcome.StreamsCreated) plane.proposeAccepted(new Command.CreateStream()).join())
            .firstStreamId();
    plane.proposeAccepted(new Command.OpenStream(streamId, 3, DEAD_EPOCH)).join();
    plane.proposeAccepted(new Command.TakeOverNode(3, DEAD_EPOCH, 1, EPOCH)).join();
    orphans = new Failover.TakenOverStreams(plane, 3, DEAD_EPOCH);
  }

  @AfterEach
  void stop() {
    plane.close();
  }

  @Test
  void whileTheTakeoverIsOnTheDeadProcessesOpenStreamsAreListed() {
    assertThat(orphans.streams().join())
        .extracting(StreamMetadata::streamId)
        .containsExactly(streamId);
  }

  @Test
  void theNodeComingBackEndsTheTakeoverWithARefusalNotAnEmptyList() {
    plane.proposeAccepted(new Command.RegisterNode(3, 2, "http://127.0.0.1:3", 1)).join();

    assertEnded("the node came back (epoch 2)");
  }

  @Test
  void anotherTakerEndsThisOnesTakeoverTheSameWay() {
    plane.proposeAccepted(new Command.TakeOverNode(3, DEAD_EPOCH, 2, EPOCH)).join();

    assertEnded("node 2 took it over from this one");
  }

  private void assertEnded(String why) {
    assertThatThrownBy(() -> orphans.streams().join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            MetadataRejectedException.class,
            rejected ->
                assertThat(rejected.reason()).isEqualTo(MetadataRejectedException.Reason.FENCED))
        .hasMessageContaining(why);
  }
}
