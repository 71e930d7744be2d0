package io.picomq.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A Linux network namespace ({@code ip netns}) for one server process, joined to the host by two
 * veth links, so that a test can partition it from some peers and not others:
 *
 * <ul>
 *   <li>the front link ({@link #frontAddress}): the test's clients and the other nodes reach the
 *       process here;
 *   <li>the back link: the process reaches its dependencies (Postgres, S3) through {@link
 *       TcpRelay}s listening on the host's end, {@link #backHostAddress}. {@link #cut} takes that
 *       link down: packets on it are dropped without a word (no reset, no refusal), as in a real
 *       partition; {@link #heal} brings it back and open connections carry on.
 * </ul>
 *
 * Needs root and the {@code ip} tool; {@link #create} answers empty where either is missing. Every
 * namespace gets random names and a random pair of /30 subnets in 10.231.0.0/16, so that runs on
 * one machine do not collide.
 */
public final class NetworkNamespace implements AutoCloseable {

  private final String name;
  private final String front;
  private final String back;
  private final int subnet;

  private NetworkNamespace(String name, String front, String back, int subnet) {
    this.name = name;
    this.front = front;
    this.back = back;
    this.subnet = subnet;
  }

  /** A new namespace with both links up, or empty if this machine cannot make one. */
  public static Optional<NetworkNamespace> create() {
    String id = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);
    int subnet = ThreadLocalRandom.current().nextInt(256);
    NetworkNamespace namespace = new NetworkNamespace("pico-" + id, "pf" + id, "pb" + id, subnet);
    if (!run("ip", "netns", "add", namespace.name)) {
      return Optional.empty();
    }
    try {
      namespace.link(namespace.front, 1);
      namespace.link(namespace.back, 5);
      namespace.inside("ip", "link", "set", "lo", "up");
      return Optional.of(namespace);
    } catch (RuntimeException e) {
      namespace.close();
      throw e;
    }
  }

  /** The command prefix that runs a program inside the namespace (it execs the program). */
  public List<String> wrapper() {
    return List.of("ip", "netns", "exec", name);
  }

  /** The process's address on the front link: where to listen, and where clients reach it. */
  public String frontAddress() {
    return address(2);
  }

  /** The host's address on the back link: where relays to the process's dependencies listen. */
  public String backHostAddress() {
    return address(5);
  }

  /** Partitions the process from everything it reaches over the back link. */
  public void cut() {
    must("ip", "link", "set", back, "down");
  }

  /** Ends the partition. */
  public void heal() {
    must("ip", "link", "set", back, "up");
  }

  @Override
  public void close() {
    // Deleting the namespace deletes the veth ends in it, and with them their host-side peers;
    // deleting those too covers a namespace that was half made.
    run("ip", "netns", "del", name);
    quietly("ip", "link", "del", front);
    quietly("ip", "link", "del", back);
  }

  /** A veth pair: the host's end at address {@code .host} of a /30, the namespace's the next. */
  private void link(String hostEnd, int host) {
    String peer = hostEnd + "n";
    must("ip", "link", "add", hostEnd, "type", "veth", "peer", "name", peer);
    must("ip", "link", "set", peer, "netns", name);
    must("ip", "addr", "add", address(host) + "/30", "dev", hostEnd);
    must("ip", "link", "set", hostEnd, "up");
    inside("ip", "addr", "add", address(host + 1) + "/30", "dev", peer);
    inside("ip", "link", "set", peer, "up");
  }

  private String address(int host) {
    return String.format(Locale.ROOT, "10.231.%d.%d", subnet, host);
  }

  private void inside(String... command) {
    List<String> full = new ArrayList<>(wrapper());
    full.addAll(List.of(command));
    must(full.toArray(String[]::new));
  }

  private static void must(String... command) {
    if (!run(command)) {
      throw new IllegalStateException("failed: " + String.join(" ", command));
    }
  }

  /** Runs a command that may fail, saying nothing. */
  private static void quietly(String... command) {
    try {
      new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor(30, TimeUnit.SECONDS);
    } catch (IOException e) {
      // no ip tool: nothing to delete
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Runs a command, printing what it said if it failed; whether it succeeded. */
  private static boolean run(String... command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return false;
      }
      if (process.exitValue() != 0 && !output.isBlank()) {
        System.out.println(String.join(" ", command) + ": " + output.strip());
      }
      return process.exitValue() == 0;
    } catch (IOException e) {
      return false; // no ip tool
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted: " + String.join(" ", command)));
    }
  }
}
