package io.picomq.server.service;

import io.picomq.stream.ProducerTag;
import java.util.Objects;
import java.util.Optional;

/**
 * What an append did to its stream's registry entry, stored with the append's records (as the batch
 * trailer of {@link RecordBatchPayload}) so that the log itself says which producer seq, writer seq
 * and seal a durable batch carried. A node loading a stream replays the stamps of the batches its
 * registry entry does not cover yet: an append whose records became durable counts even if the node
 * died before its entry was written.
 *
 * @param producer the idempotent producer's (id, epoch, seq), if the append had one
 * @param writerSeq the writer seq token the append set, if any
 * @param close whether the append sealed the stream
 */
record BatchStamp(Optional<ProducerTag> producer, Optional<String> writerSeq, boolean close) {

  BatchStamp {
    Objects.requireNonNull(producer, "producer");
    Objects.requireNonNull(writerSeq, "writerSeq");
  }

  /** Whether there is anything to store: a plain append carries no trailer. */
  boolean isEmpty() {
    return producer.isEmpty() && writerSeq.isEmpty() && !close;
  }
}
