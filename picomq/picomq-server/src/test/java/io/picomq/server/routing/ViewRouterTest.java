package io.picomq.server.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.s3stream.S3Stream;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.server.metadata.MetadataPlane;
import io.picomq.server.metadata.NodeIdentity;
import io.picomq.server.metadata.PlaneObjectManager;
import io.picomq.server.metadata.PlaneStreamManager;
import io.picomq.server.service.EngineStreamService;
import io.picomq.server.service.Registry;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.Route;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The section 5 decision table, against a real metadata view with a second (simulated) node. */
class ViewRouterTest {
  @TempDir Path dir;

  @Test
  void routesByTheOwnerInTheView() throws Exception {
    try (MetadataPlane plane =
        MetadataPlane.open(
            "sqlite::memory:", new NodeIdentity(1, 10, "http://one:4437", 1), Clock.systemUTC())) {
      plane.start();
      StreamEngine engine =
          S3Stream.builder()
              .config(EngineConfig.builder().nodeId(1).nodeEpoch(10).build())
              .storage("0@file://" + dir.resolve("objects"))
              .streamManager(new PlaneStreamManager(plane))
              .objectManager(new PlaneObjectManager(plane, Clock.systemUTC()))
              .build();
      engine.start().join();
      var service =
          new EngineStreamService(
              plane,
              engine,
              Clock.systemUTC(),
              Executors.newVirtualThreadPerTaskExecutor(),
              PooledByteBufAllocator.DEFAULT);
      ViewRouter router = new ViewRouter(plane, 1, true);

      assertThat(router.route("/new")).isEqualTo(Route.LOCAL);
      service.create("/s", CreateRequest.of("text/plain")).join();
      assertThat(router.route("/s")).isEqualTo(Route.LOCAL);

      // Node 2 joins and takes the stream over (as after a transfer): requests go there.
      plane.proposeAccepted(new Command.RegisterNode(2, 20, "http://two:4437", 1)).join();
      long streamId = Registry.registeredStreamId(plane.state(), "/s").getAsLong();
      engine.shutdown().join(); // closes the stream on node 1
      Outcome opened = plane.proposeAccepted(new Command.OpenStream(streamId, 2, 20)).join();
      assertThat(opened).isInstanceOf(Outcome.StreamOpened.class);
      assertThat(router.route("/s")).isEqualTo(new Route.Redirect(2, "http://two:4437"));
      assertThat(new ViewRouter(plane, 1, false).route("/s")).isEqualTo(Route.LOCAL);

      // Node 2 restarts with a new epoch: the old process's open no longer counts.
      plane.proposeAccepted(new Command.RegisterNode(2, 21, "http://two:4437", 1)).join();
      assertThat(router.route("/s")).isEqualTo(Route.LOCAL);
    }
  }
}
