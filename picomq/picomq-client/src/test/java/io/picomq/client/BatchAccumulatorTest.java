package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class BatchAccumulatorTest {

  private static Record bytes(int size) {
    return Record.of(new byte[size]);
  }

  @Test
  void aBatchIsSealedWhenItReachesTheRecordLimit() {
    BatchAccumulator accumulator = new BatchAccumulator(3, 1 << 20);

    assertThat(accumulator.add(bytes(1), new CompletableFuture<>())).isEmpty();
    assertThat(accumulator.add(bytes(1), new CompletableFuture<>())).isEmpty();
    List<ProducerBatch> sealed = accumulator.add(bytes(1), new CompletableFuture<>());

    assertThat(sealed)
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.records).hasSize(3);
              assertThat(b.producerSeq).isZero();
              assertThat(b.bytes).isEqualTo(3);
            });
    assertThat(accumulator.hasOpenBatch()).isFalse();
  }

  @Test
  void aRecordThatDoesNotFitStartsTheNextBatch() {
    BatchAccumulator accumulator = new BatchAccumulator(100, 10);
    accumulator.add(bytes(6), new CompletableFuture<>());

    List<ProducerBatch> sealed = accumulator.add(bytes(6), new CompletableFuture<>());

    assertThat(sealed).singleElement().satisfies(b -> assertThat(b.bytes).isEqualTo(6));
    assertThat(accumulator.hasOpenBatch()).isTrue();
    assertThat(accumulator.seal())
        .hasValueSatisfying(
            b -> {
              assertThat(b.producerSeq).isEqualTo(1);
              assertThat(b.bytes).isEqualTo(6);
            });
  }

  @Test
  void aRecordBiggerThanTheLimitGoesAlone() {
    BatchAccumulator accumulator = new BatchAccumulator(100, 10);
    accumulator.add(bytes(2), new CompletableFuture<>());

    List<ProducerBatch> sealed = accumulator.add(bytes(50), new CompletableFuture<>());

    assertThat(sealed).extracting(b -> b.bytes).containsExactly(2L, 50L);
    assertThat(sealed).extracting(b -> b.producerSeq).containsExactly(0L, 1L);
    assertThat(accumulator.hasOpenBatch()).isFalse();
  }

  @Test
  void sealingNothingGivesNothingAndTakesNoSeq() {
    BatchAccumulator accumulator = new BatchAccumulator(10, 10);

    assertThat(accumulator.seal()).isEmpty();
    assertThat(accumulator.nextProducerSeq()).isZero();
  }

  /** Seeded: every record lands in exactly one batch, in order, and no batch breaks a limit. */
  @Test
  void randomRecordsKeepTheirOrderAndTheLimits() {
    long seed = Long.getLong("picomq.seed", new Random().nextLong());
    Random random = new Random(seed);
    for (int round = 0; round < 200; round++) {
      int maxRecords = 1 + random.nextInt(20);
      long maxBytes = 1 + random.nextInt(100);
      BatchAccumulator accumulator = new BatchAccumulator(maxRecords, maxBytes);
      List<CompletableFuture<AppendResult>> sent = new ArrayList<>();
      List<ProducerBatch> batches = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        CompletableFuture<AppendResult> future = new CompletableFuture<>();
        sent.add(future);
        batches.addAll(accumulator.add(bytes(random.nextInt(30)), future));
        if (random.nextInt(10) == 0) {
          accumulator.seal().ifPresent(batches::add);
        }
      }
      accumulator.seal().ifPresent(batches::add);
      List<CompletableFuture<AppendResult>> batched = new ArrayList<>();
      for (int b = 0; b < batches.size(); b++) {
        ProducerBatch batch = batches.get(b);
        assertThat(batch.producerSeq).as("seed %d", seed).isEqualTo(b);
        assertThat(batch.records.size()).as("seed %d", seed).isBetween(1, maxRecords);
        assertThat(batch.bytes <= maxBytes || batch.records.size() == 1)
            .as("seed %d: batch of %d bytes", seed, batch.bytes)
            .isTrue();
        batched.addAll(batch.futures);
      }
      assertThat(batched).as("seed %d", seed).containsExactlyElementsOf(sent);
    }
  }
}
