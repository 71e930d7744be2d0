package io.picomq.server.service;

import io.netty.buffer.PooledByteBufAllocator;
import io.picomq.s3stream.S3Stream;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.server.metadata.HandoffCompletions;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.metadata.NodeIdentity;
import io.picomq.server.metadata.PlaneObjectManager;
import io.picomq.server.metadata.PlaneStreamManager;
import io.picomq.sql.backend.BackendOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.InstantSource;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;

/**
 * A real node's service stack for tests: metadata plane on {@code metaUrl}, the engine on file://
 * storage under {@code dataDir}, and the service over both.
 */
final class NodeFixture implements AutoCloseable {
  final MetadataPlane plane;
  final StreamEngine engine;
  final EngineStreamService service;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

  NodeFixture(String metaUrl, Path dataDir, long nodeEpoch, InstantSource serviceClock)
      throws Exception {
    this(metaUrl, BackendOptions.defaults(), dataDir, nodeEpoch, serviceClock, entries -> entries);
  }

  NodeFixture(
      String metaUrl,
      BackendOptions options,
      Path dataDir,
      long nodeEpoch,
      InstantSource serviceClock)
      throws Exception {
    this(metaUrl, options, dataDir, nodeEpoch, serviceClock, entries -> entries);
  }

  /** {@code entryLog} wraps the real entry writes (to inject faults into them). */
  NodeFixture(
      String metaUrl,
      BackendOptions options,
      Path dataDir,
      long nodeEpoch,
      InstantSource serviceClock,
      UnaryOperator<EntryLog> entryLog)
      throws Exception {
    this(metaUrl, options, dataDir, nodeEpoch, serviceClock, entryLog, engine -> engine);
  }

  /** {@code engineWrap} wraps the engine the service sees (to hold appends). */
  NodeFixture(
      String metaUrl,
      BackendOptions options,
      Path dataDir,
      long nodeEpoch,
      InstantSource serviceClock,
      UnaryOperator<EntryLog> entryLog,
      UnaryOperator<StreamEngine> engineWrap)
      throws Exception {
    this(
        metaUrl,
        options,
        nodeEpoch,
        serviceClock,
        entryLog,
        engineWrap,
        Storage.file(dataDir.resolve("objects")));
  }

  /**
   * Where the engine keeps its objects, with its settings: {@code file://} by default, or an S3
   * server.
   */
  record Storage(
      String uri, UnaryOperator<EngineConfig.Builder> config, String accessKey, String secretKey) {
    static Storage file(Path directory) {
      return new Storage(
          "0@file://" + directory, c -> c.walCacheSizeBytes(16 * EngineConfig.MIB), null, null);
    }
  }

  /** The engine on {@code storage}. */
  NodeFixture(
      String metaUrl,
      BackendOptions options,
      long nodeEpoch,
      InstantSource serviceClock,
      UnaryOperator<EntryLog> entryLog,
      UnaryOperator<StreamEngine> engineWrap,
      Storage storage)
      throws Exception {
    plane =
        MetadataPlane.open(
            metaUrl,
            options,
            new NodeIdentity(1, nodeEpoch, "http://127.0.0.1:0", 1),
            Clock.systemUTC());
    plane.start();
    S3Stream.Builder builder =
        S3Stream.builder()
            .config(
                storage
                    .config()
                    .apply(
                        EngineConfig.builder()
                            .nodeId(1)
                            .nodeEpoch(nodeEpoch)
                            .blockCacheSizeBytes(4 * EngineConfig.MIB))
                    .build())
            .storage(storage.uri())
            .streamManager(new PlaneStreamManager(plane, new HandoffCompletions(plane)))
            .objectManager(new PlaneObjectManager(plane, Clock.systemUTC()));
    if (storage.accessKey() != null) {
      builder.s3Credentials(storage.accessKey(), storage.secretKey());
    }
    engine = builder.build();
    engine.start().join();
    service =
        new EngineStreamService(
            plane,
            engineWrap.apply(engine),
            serviceClock,
            executor,
            PooledByteBufAllocator.DEFAULT,
            entryLog.apply(EntryLog.of(plane)));
  }

  /** A clean stop: the engine flushes and closes its streams, then the plane stops. */
  @Override
  public void close() {
    try {
      engine.shutdown().join();
    } finally {
      executor.shutdownNow();
      plane.close();
    }
  }

  /**
   * Stops without flushing or closing anything (as close to a kill as a test in one JVM gets): the
   * metadata plane is closed so its file can be opened again, the engine is abandoned.
   */
  void abandon() {
    executor.shutdownNow();
    plane.close();
  }
}
