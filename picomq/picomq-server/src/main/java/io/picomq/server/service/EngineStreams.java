package io.picomq.server.service;

import io.picomq.s3stream.api.Stream;
import io.picomq.s3stream.api.StreamEngine;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The engine streams this node has open, by id: a stream's own, and the ones a fork reads its
 * sources' records through. Opened on first use and shared.
 *
 * <p>Threading: any thread. {@link #open} blocks (bounded) on the engine outside any lock; two
 * callers opening one id at once may both open it, and the first one stored wins.
 */
final class EngineStreams {
  private final StreamEngine engine;
  private final ServiceFailures failures;
  private final ConcurrentHashMap<Long, Stream> open = new ConcurrentHashMap<>();

  EngineStreams(StreamEngine engine, ServiceFailures failures) {
    this.engine = engine;
    this.failures = failures;
  }

  /** The open stream {@code streamId}, opened now if it was not. Blocks on the engine. */
  Stream open(long streamId) {
    Stream stream = open.get(streamId);
    if (stream != null) {
      return stream;
    }
    Stream opened = failures.await(engine.openStream(streamId));
    Stream raced = open.putIfAbsent(streamId, opened);
    return raced != null ? raced : opened;
  }

  /** Keeps {@code stream}, just created and opened, for later readers. */
  void adopt(Stream stream) {
    open.put(stream.streamId(), stream);
  }

  /** Forgets {@code stream} (destroyed, or to be opened afresh), if it is the one kept. */
  void drop(Stream stream) {
    open.remove(stream.streamId(), stream);
  }
}
