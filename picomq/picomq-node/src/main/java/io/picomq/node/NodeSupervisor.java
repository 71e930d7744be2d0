package io.picomq.node;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a node running across takeovers: when the running process learns that another node took it
 * over ({@link Node#replaced()}: it was paused or cut off past its liveness TTL), the supervisor
 * stops it and starts the node again with a new epoch, which recovers whatever its WAL still holds
 * and serves again. What {@code pico serve} runs, and what anything else hosting a node should run.
 *
 * <p>Threading: {@link #start} and {@link #close} may be called from any thread; a restart runs on
 * a virtual thread of its own.
 */
public final class NodeSupervisor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeSupervisor.class);
  private static final Duration RESTART_BACKOFF = Duration.ofSeconds(1);

  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();

  /** Guarded by {@code lock}. */
  private Node node;

  /** Guarded by {@code lock}. */
  private boolean closed;

  private NodeSupervisor(Clock clock) {
    this.clock = clock;
  }

  /** Starts the node of {@code config} and supervises it; fails as {@link Node#start} does. */
  public static NodeSupervisor start(NodeConfig config, Clock clock) throws Exception {
    NodeSupervisor supervisor = new NodeSupervisor(clock);
    supervisor.run(Node.start(config, clock));
    return supervisor;
  }

  /** The node running now (a later restart replaces it). */
  public Node node() {
    lock.lock();
    try {
      return node;
    } finally {
      lock.unlock();
    }
  }

  private void run(Node started) {
    lock.lock();
    try {
      if (closed) {
        started.stop(Duration.ZERO);
        return;
      }
      node = started;
    } finally {
      lock.unlock();
    }
    CompletableFuture<String> replaced = started.replaced();
    replaced.thenAccept(
        why -> Thread.ofVirtual().name("picomq-node-restart").start(() -> restart(started, why)));
  }

  private void restart(Node replaced, String why) {
    NodeConfig old = replaced.config();
    LOG.warn(
        "node {} epoch {} stops: {}; starting again with a new epoch",
        old.nodeId(),
        old.nodeEpoch(),
        why);
    InetSocketAddress address = replaced.address();
    Optional<InetSocketAddress> adminAddress = replaced.adminAddress();
    replaced.stop(Duration.ZERO);
    while (!isClosed()) {
      long epoch = Math.max(clock.millis(), old.nodeEpoch() + 1);
      try {
        run(Node.start(restartConfig(old, epoch, address, adminAddress), clock));
        return;
      } catch (Exception e) {
        LOG.warn("node {} could not start again: {}; retrying", old.nodeId(), e.toString());
        try {
          Thread.sleep(RESTART_BACKOFF);
        } catch (InterruptedException interrupted) {
          return;
        }
      }
    }
  }

  /**
   * The restarted node's settings: a new epoch, and the ports the replaced node listened on. A
   * listener configured with port 0 got a free port at start; binding another one now would strand
   * every client that knows the node by its address.
   */
  static NodeConfig restartConfig(
      NodeConfig old,
      long epoch,
      InetSocketAddress address,
      Optional<InetSocketAddress> adminAddress) {
    NodeConfig.Builder next = old.newBuilder().nodeEpoch(epoch);
    if (address != null && NodeConfig.HostPort.parse(old.listen()).port() == 0) {
      next.listen(withPort(old.listen(), address.getPort()));
    }
    Optional<String> adminListen = old.adminListen();
    if (adminListen.isPresent()
        && adminAddress.isPresent()
        && NodeConfig.HostPort.parse(adminListen.get()).port() == 0) {
      next.adminListen(withPort(adminListen.get(), adminAddress.get().getPort()));
    }
    return next.build();
  }

  /** {@code host:0} as configured (the host as written, e.g. {@code [::1]}) with {@code port}. */
  private static String withPort(String hostPort, int port) {
    return hostPort.substring(0, hostPort.lastIndexOf(':') + 1) + port;
  }

  private boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Stops the running node with its configured drain; no restart follows. */
  @Override
  public void close() {
    Node running;
    lock.lock();
    try {
      closed = true;
      running = node;
    } finally {
      lock.unlock();
    }
    if (running != null) {
      running.close();
    }
  }
}
