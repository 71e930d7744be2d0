package io.picomq.server.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.stream.CreateOutcome;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.ListQuery;
import io.picomq.stream.StreamDescription;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Creates race through the log: one name gets one stream, many names are created in parallel. */
class ConcurrentCreateTest {
  @TempDir Path dir;

  @Test
  void racingCreatesSettleInTheLog() throws Exception {
    try (NodeFixture node =
        new NodeFixture("sqlite:" + dir.resolve("meta.db"), dir, 1, Clock.systemUTC())) {
      List<CompletableFuture<CreateOutcome>> same = new ArrayList<>();
      List<CompletableFuture<CreateOutcome>> distinct = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        same.add(node.service.create("/same", CreateRequest.of("text/plain")));
        distinct.add(node.service.create("/many/" + i, CreateRequest.of("text/plain")));
      }
      List<CreateOutcome> outcomes = same.stream().map(CompletableFuture::join).toList();
      assertThat(outcomes).filteredOn(CreateOutcome.Created.class::isInstance).hasSize(1);
      assertThat(outcomes)
          .allSatisfy(
              outcome ->
                  assertThat(outcome)
                      .isInstanceOfAny(CreateOutcome.Created.class, CreateOutcome.Exists.class));
      long id =
          ((CreateOutcome.Created)
                  outcomes.stream()
                      .filter(CreateOutcome.Created.class::isInstance)
                      .findFirst()
                      .orElseThrow())
              .stream().streamId();
      assertThat(outcomes)
          .filteredOn(CreateOutcome.Exists.class::isInstance)
          .allSatisfy(
              o -> assertThat(((CreateOutcome.Exists) o).stream().streamId()).isEqualTo(id));
      assertThat(distinct.stream().map(CompletableFuture::join))
          .allSatisfy(outcome -> assertThat(outcome).isInstanceOf(CreateOutcome.Created.class));
      List<StreamDescription> listed =
          node.service.list(new ListQuery("/many/", Optional.empty(), 100)).join().streams();
      assertThat(listed).hasSize(20);
    }
  }

  /**
   * A loser looks the winner up. A load of the name that began before the winner's entry applied
   * (another loser's first lookup) must not answer it "not found": that was a 409 "created and
   * removed concurrently" for a name nobody removed, seen under wrk.
   */
  @Test
  void everyLoserOfARaceFindsTheWinner() throws Exception {
    try (NodeFixture node =
            new NodeFixture("sqlite:" + dir.resolve("meta.db"), dir, 1, Clock.systemUTC());
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      // Each writer creates the same names in the same order, as wrk threads sharing a counter
      // do: the writers drift apart, so a loser's lookup can meet a racer's first lookup.
      List<CompletableFuture<List<CreateOutcome>>> writers = new ArrayList<>();
      for (int w = 0; w < 8; w++) {
        writers.add(
            CompletableFuture.supplyAsync(
                () -> {
                  List<CreateOutcome> outcomes = new ArrayList<>();
                  for (int n = 0; n < 400; n++) {
                    outcomes.add(
                        node.service.create("/race/" + n, CreateRequest.of("text/plain")).join());
                  }
                  return outcomes;
                },
                threads));
      }
      for (CompletableFuture<List<CreateOutcome>> writer : writers) {
        assertThat(writer.join())
            .allSatisfy(
                outcome ->
                    assertThat(outcome)
                        .isInstanceOfAny(CreateOutcome.Created.class, CreateOutcome.Exists.class));
      }
    }
  }
}
