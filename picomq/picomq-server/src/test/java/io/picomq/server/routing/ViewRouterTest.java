package io.picomq.server.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.PooledByteBufAllocator;
import io.picomq.meta.apply.Outcome;
import io.picomq.meta.command.Command;
import io.picomq.s3stream.S3Stream;
import io.picomq.s3stream.api.EngineConfig;
import io.picomq.s3stream.api.StreamEngine;
import io.picomq.server.metadata.HandoffCompletions;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
              .streamManager(new PlaneStreamManager(plane, new HandoffCompletions(plane)))
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
      Set<Integer> dead = ConcurrentHashMap.newKeySet();
      ViewRouter router =
          new ViewRouter(plane, 1, true, (nodeId, nodeEpoch) -> dead.contains(nodeId));

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
      assertThat(new ViewRouter(plane, 1, false, NodeLivenessCheck.NONE_DEAD).route("/s"))
          .isEqualTo(Route.LOCAL);

      // Node 2's liveness row lapses: never a redirect to a dead node, the stream waits.
      dead.add(2);
      assertThat(router.route("/s")).isEqualTo(new Route.Recovering(2));
      dead.clear();

      // Node 2 restarts with a new epoch: until it recovered its old process's WAL and closed
      // the stream, nobody serves it (serving it here would lose what node 2 acknowledged).
      plane.proposeAccepted(new Command.RegisterNode(2, 21, "http://two:4437", 1)).join();
      assertThat(router.route("/s")).isEqualTo(new Route.Recovering(2));
      long epoch = plane.state().stream(streamId).orElseThrow().epoch();
      plane.proposeAccepted(new Command.CloseStream(streamId, epoch, 2, 21)).join();
      // Closed, it stays placed on node 2, which opens it on the next request; if node 2 is
      // presumed dead, any node may open it.
      assertThat(router.route("/s")).isEqualTo(new Route.Redirect(2, "http://two:4437"));
      dead.add(2);
      assertThat(router.route("/s")).isEqualTo(Route.LOCAL);
      dead.clear();

      // A transfer to node 1: requests go to the target, unless it is presumed dead.
      plane.proposeAccepted(new Command.TransferStream(streamId, 1)).join(); // closed: moves now
      assertThat(router.route("/s")).isEqualTo(Route.LOCAL);
      plane.proposeAccepted(new Command.TransferStream(streamId, 2)).join();

      // Opened on node 2 again, then node 2 is taken over by node 1: under recovery.
      plane.proposeAccepted(new Command.OpenStream(streamId, 2, 21)).join();
      assertThat(router.route("/s")).isEqualTo(new Route.Redirect(2, "http://two:4437"));

      // A pending transfer to node 3 sends requests there, unless node 3 is presumed dead.
      plane.proposeAccepted(new Command.RegisterNode(3, 30, "http://three:4437", 1)).join();
      plane.proposeAccepted(new Command.TransferStream(streamId, 3)).join();
      assertThat(router.route("/s")).isEqualTo(new Route.Redirect(3, "http://three:4437"));
      dead.add(3);
      assertThat(router.route("/s")).isEqualTo(new Route.Redirect(2, "http://two:4437"));
      dead.clear();
      plane.proposeAccepted(new Command.CancelTransfer(streamId)).join();

      plane.proposeAccepted(new Command.TakeOverNode(2, 21, 1, 10)).join();
      assertThat(router.route("/s")).isEqualTo(new Route.Recovering(2));
    }
  }
}
