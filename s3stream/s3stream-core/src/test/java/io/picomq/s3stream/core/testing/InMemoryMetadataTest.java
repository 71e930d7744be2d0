package io.picomq.s3stream.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.picomq.s3stream.api.CommitStreamSetObjectRequest;
import io.picomq.s3stream.api.MetadataRejectedException;
import io.picomq.s3stream.api.MetadataRejectedException.Reason;
import io.picomq.s3stream.api.ObjectMetadata;
import io.picomq.s3stream.api.StreamMetadata;
import io.picomq.s3stream.api.StreamObject;
import io.picomq.s3stream.api.StreamOffsetRange;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The in-memory metadata plane keeps the contracts the engine relies on. */
class InMemoryMetadataTest {

  private final InMemoryMetadata metadata = new InMemoryMetadata();

  private static <T> T join(CompletableFuture<T> f) {
    return f.join();
  }

  private static Reason refusal(CompletableFuture<?> f) {
    try {
      f.get();
      throw new AssertionError("expected a refusal");
    } catch (ExecutionException e) {
      return ((MetadataRejectedException) e.getCause()).reason();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private static CommitStreamSetObjectRequest newData(
      long objectId, long streamId, long epoch, long start, long end) {
    return new CommitStreamSetObjectRequest(
        objectId,
        0,
        100,
        List.of(new StreamOffsetRange(streamId, start, end)),
        List.of(),
        List.of(),
        Map.of(streamId, epoch));
  }

  @Test
  void openingBumpsTheEpochAndANewerNodeEpochFencesTheOlder() {
    long s = metadata.createStream();
    InMemoryMetadata.Node old = metadata.register(1, 10);
    StreamMetadata opened = join(old.openStream(s));
    assertThat(opened.epoch()).isZero();
    assertThat(join(old.openStream(s)).epoch()).as("reopen by the same process").isZero();
    InMemoryMetadata.Node fresh = metadata.register(1, 11);
    assertThat(join(fresh.openingStreams()))
        .extracting(StreamMetadata::streamId)
        .containsExactly(s);
    assertThat(refusal(old.prepareObjects(1, Duration.ofMinutes(1)))).isEqualTo(Reason.NODE_FENCED);
    assertThatThrownBy(() -> metadata.register(1, 9)).isInstanceOf(MetadataRejectedException.class);
    assertThat(join(fresh.openStream(s)).epoch()).isEqualTo(1);
    assertThat(join(fresh.openingStreams())).isEmpty();
  }

  @Test
  void aStreamOpenOnALiveNodeCannotBeOpenedElsewhere() {
    long s = metadata.createStream();
    join(metadata.register(1, 1).openStream(s));
    assertThat(refusal(metadata.register(2, 1).openStream(s))).isEqualTo(Reason.OPEN_ON_OTHER_NODE);
  }

  @Test
  void aFailedNodesTakerCommitsToAndClosesItsStreamsUntilTheNodeComesBack() {
    long s = metadata.createStream();
    long t = metadata.createStream();
    InMemoryMetadata.Node dead = metadata.register(1, 1);
    join(dead.openStream(s));
    join(dead.openStream(t));
    InMemoryMetadata.Node taker = metadata.register(2, 1);
    assertThat(refusal(taker.orphanedStreams(1).streams()))
        .as("before the failover")
        .isEqualTo(Reason.FENCED);

    metadata.failNode(1, 2);
    assertThat(refusal(dead.prepareObjects(1, Duration.ofMinutes(1))))
        .isEqualTo(Reason.NODE_FENCED);
    assertThat(join(taker.orphanedStreams(1).streams()))
        .extracting(StreamMetadata::streamId)
        .containsExactly(s, t);
    long id = join(taker.prepareObjects(2, Duration.ofMinutes(1)));
    join(taker.commitStreamSetObject(newData(id, s, 0, 0, 5)));
    join(taker.orphanedStreams(1).closeStream(s, 0));
    join(taker.orphanedStreams(1).closeStream(s, 0)); // again: already closed
    assertThat(metadata.stream(s).endOffset()).isEqualTo(5);
    assertThat(metadata.stream(s).state()).isEqualTo(StreamMetadata.StreamState.CLOSED);
    assertThat(refusal(metadata.register(3, 1).orphanedStreams(1).streams()))
        .as("another node is not the taker")
        .isEqualTo(Reason.FENCED);

    InMemoryMetadata.Node back = metadata.register(1, 2);
    assertThat(refusal(taker.commitStreamSetObject(newData(id + 1, t, 0, 0, 5))))
        .as("the node came back: the taker may no longer write its streams")
        .isEqualTo(Reason.FENCED);
    assertThat(join(back.openingStreams())).extracting(StreamMetadata::streamId).containsExactly(t);
  }

  @Test
  void commitsMustContinueTheCommittedEndAtTheCurrentEpoch() {
    long s = metadata.createStream();
    InMemoryMetadata.Node node = metadata.register(1, 1);
    join(node.openStream(s));
    long first = join(node.prepareObjects(4, Duration.ofMinutes(1)));
    assertThat(refusal(node.commitStreamSetObject(newData(first, s, 0, 5, 10))))
        .isEqualTo(Reason.OFFSET_MISMATCH);
    assertThat(refusal(node.commitStreamSetObject(newData(first, s, 7, 0, 10))))
        .isEqualTo(Reason.FENCED);
    join(node.commitStreamSetObject(newData(first, s, 0, 0, 10)));
    assertThat(metadata.stream(s).endOffset()).isEqualTo(10);
    // A repeat of an applied commit is harmless.
    join(node.commitStreamSetObject(newData(first, s, 0, 0, 10)));
    assertThat(metadata.commits()).hasSize(1);
    assertThat(refusal(node.commitStreamSetObject(newData(99, s, 0, 10, 20))))
        .as("an id never prepared")
        .isEqualTo(Reason.UNKNOWN_OBJECT);
  }

  @Test
  void getObjectsFindsStreamSetAndStreamObjectsInOffsetOrder() {
    long a = metadata.createStream();
    long b = metadata.createStream();
    InMemoryMetadata.Node node = metadata.register(1, 1);
    join(node.openStream(a));
    join(node.openStream(b));
    long id = join(node.prepareObjects(3, Duration.ofMinutes(1)));
    join(
        node.commitStreamSetObject(
            new CommitStreamSetObjectRequest(
                id + 1,
                0,
                200,
                List.of(new StreamOffsetRange(b, 0, 5)),
                List.of(new StreamObject(id, 300, new StreamOffsetRange(a, 0, 10), 0)),
                List.of(),
                Map.of(a, 0L, b, 0L))));
    join(node.commitStreamSetObject(newData(id + 2, a, 0, 10, 15)));
    assertThat(join(node.getObjects(a, 0, -1, 10)))
        .extracting(ObjectMetadata::objectId)
        .containsExactly(id, id + 2);
    assertThat(join(node.getObjects(a, 12, 15, 10)))
        .extracting(ObjectMetadata::objectId)
        .containsExactly(id + 2);
    assertThat(join(node.getStreamSetObjects()))
        .extracting(ObjectMetadata::objectId)
        .containsExactly(id + 1, id + 2);
  }

  @Test
  void trimDropsObjectsWhollyBelowTheNewStart() {
    long s = metadata.createStream();
    InMemoryMetadata.Node node = metadata.register(1, 1);
    join(node.openStream(s));
    long id = join(node.prepareObjects(2, Duration.ofMinutes(1)));
    join(node.commitStreamSetObject(newData(id, s, 0, 0, 10)));
    join(node.commitStreamSetObject(newData(id + 1, s, 0, 10, 20)));
    assertThat(refusal(node.trimStream(s, 0, 21))).isEqualTo(Reason.OFFSET_MISMATCH);
    join(node.trimStream(s, 0, 12));
    assertThat(metadata.destroyedObjectIds()).containsExactly(id);
    assertThat(metadata.stream(s).startOffset()).isEqualTo(12);
  }

  @Test
  void aClosedStreamTakesNoNewData() {
    long s = metadata.createStream();
    InMemoryMetadata.Node node = metadata.register(1, 1);
    join(node.openStream(s));
    join(node.closeStream(s, 0));
    long id = join(node.prepareObjects(1, Duration.ofMinutes(1)));
    assertThat(refusal(node.commitStreamSetObject(newData(id, s, 0, 0, 1))))
        .isEqualTo(Reason.STREAM_CLOSED);
  }
}
