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
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The section 5 decision table, against a real metadata view with a second (simulated) node. */
class ViewRouterTest {
  @TempDir Path dir;

  @Test
  void routesByTheOwnerInTheView() throws Exception {
    try (MetadataPlane plane = startedPlaneOfNodeOne()) {
      StreamEngine engine = engineOn(plane, 1, 10);
      EngineStreamService service = serviceOn(plane, engine);
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
      assertThat(router.route("/s")).isEqualTo(redirect(2, "http://two:4437", plane));
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
      assertThat(router.route("/s")).isEqualTo(redirect(2, "http://two:4437", plane));
      dead.add(2);
      assertThat(router.route("/s")).isEqualTo(Route.LOCAL);
      dead.clear();

      // A transfer to node 1: requests go to the target, unless it is presumed dead.
      plane.proposeAccepted(new Command.TransferStream(streamId, 1)).join(); // closed: moves now
      assertThat(router.route("/s")).isEqualTo(Route.LOCAL);
      plane.proposeAccepted(new Command.TransferStream(streamId, 2)).join();

      // Opened on node 2 again, then node 2 is taken over by node 1: under recovery.
      plane.proposeAccepted(new Command.OpenStream(streamId, 2, 21)).join();
      assertThat(router.route("/s")).isEqualTo(redirect(2, "http://two:4437", plane));

      // A pending transfer to node 3 sends requests there, unless node 3 is presumed dead.
      plane.proposeAccepted(new Command.RegisterNode(3, 30, "http://three:4437", 1)).join();
      plane.proposeAccepted(new Command.TransferStream(streamId, 3)).join();
      assertThat(router.route("/s")).isEqualTo(redirect(3, "http://three:4437", plane));
      dead.add(3);
      assertThat(router.route("/s")).isEqualTo(redirect(2, "http://two:4437", plane));
      dead.clear();
      plane.proposeAccepted(new Command.CancelTransfer(streamId)).join();

      plane.proposeAccepted(new Command.TakeOverNode(2, 21, 1, 10)).join();
      assertThat(router.route("/s")).isEqualTo(new Route.Recovering(2));
    }
  }

  /**
   * A redirect names the position of the view that decided it; the next node decides on a view at
   * least that new, so a target that has not applied a transfer yet does not send the client back
   * to the source. Here the view lags because the row is not written yet.
   */
  @Test
  void routesWithAViewAtLeastAsNewAsTheRedirectsOne() throws Exception {
    try (MetadataPlane plane = startedPlaneOfNodeOne()) {
      StreamEngine engine = engineOn(plane, 1, 10);
      serviceOn(plane, engine).create("/s", CreateRequest.of("text/plain")).join();
      engine.shutdown().join(); // nothing else writes to the log from here on
      plane.proposeAccepted(new Command.RegisterNode(2, 20, "http://two:4437", 1)).join();
      long streamId = Registry.registeredStreamId(plane.state(), "/s").getAsLong();
      plane.proposeAccepted(new Command.OpenStream(streamId, 2, 20)).join();
      ViewRouter router = new ViewRouter(plane, 1, true, NodeLivenessCheck.NONE_DEAD);
      long applied = plane.view().appliedIndex();
      assertThat(router.route("/s", applied)).isEqualTo(redirect(2, "http://two:4437", plane));

      // Another node saw the next row, a transfer to this node: the request waits for it here.
      CompletableFuture<Route> routed =
          CompletableFuture.supplyAsync(() -> router.route("/s", applied + 1));
      Awaitility.await("the request waiting for the row")
          .during(Duration.ofMillis(200))
          .atMost(Duration.ofSeconds(2))
          .until(() -> !routed.isDone());
      plane.proposeAccepted(new Command.TransferStream(streamId, 1)).join();
      assertThat(routed.get(5, TimeUnit.SECONDS)).isEqualTo(Route.LOCAL);

      // A position this node does not reach in time: the request is not failed, the view at
      // hand decides.
      plane.proposeAccepted(new Command.CancelTransfer(streamId)).join();
      assertThat(router.route("/s", plane.view().appliedIndex() + 1_000))
          .isEqualTo(redirect(2, "http://two:4437", plane));
    }
  }

  /** Node 1 (epoch 10) on an in-memory SQLite log, registered. */
  private static MetadataPlane startedPlaneOfNodeOne() throws SQLException {
    MetadataPlane plane =
        MetadataPlane.open(
            "sqlite::memory:", new NodeIdentity(1, 10, "http://one:4437", 1), Clock.systemUTC());
    plane.start();
    return plane;
  }

  private StreamEngine engineOn(MetadataPlane plane, int nodeId, long nodeEpoch) {
    StreamEngine engine =
        S3Stream.builder()
            .config(EngineConfig.builder().nodeId(nodeId).nodeEpoch(nodeEpoch).build())
            .storage("0@file://" + dir.resolve("objects"))
            .streamManager(new PlaneStreamManager(plane, new HandoffCompletions(plane)))
            .objectManager(new PlaneObjectManager(plane, Clock.systemUTC()))
            .build();
    engine.start().join();
    return engine;
  }

  private static EngineStreamService serviceOn(MetadataPlane plane, StreamEngine engine) {
    return new EngineStreamService(
        plane,
        engine,
        Clock.systemUTC(),
        Executors.newVirtualThreadPerTaskExecutor(),
        PooledByteBufAllocator.DEFAULT);
  }

  /** A redirect to {@code nodeId} decided on {@code plane}'s current view. */
  private static Route redirect(int nodeId, String baseUrl, MetadataPlane plane) {
    return new Route.Redirect(nodeId, baseUrl, plane.view().appliedIndex());
  }
}
