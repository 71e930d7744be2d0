package io.picomq.client;

import java.util.Objects;

/**
 * The idempotent-producer headers of one append: who sends it, in which epoch, and its number in
 * that epoch. Resending an append with the same stamp and the same bytes can never write it twice.
 *
 * @param id the producer
 * @param epoch the producer's epoch, at least 0; a restarted producer takes a higher one
 * @param seq the append's number within the epoch, from 0, one more for each append
 */
public record ProducerStamp(ProducerId id, long epoch, long seq) {

  public ProducerStamp {
    Objects.requireNonNull(id, "id");
    if (epoch < 0 || seq < 0) {
      throw new IllegalArgumentException(
          "producer epoch and seq must not be negative: epoch=" + epoch + ", seq=" + seq);
    }
  }
}
