package io.picomq.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code pico serve} process started the way a user starts one: through {@code bin/pico}, on
 * SQLite and file:// storage in a directory of its own. It listens on a free port; {@link #restart}
 * starts a new process on the same data directory and, where it can, the same port, so clients
 * holding the old address reconnect to the new server.
 */
public final class ServerProcess implements AutoCloseable {
  private static final Pattern SERVING =
      Pattern.compile("serving (\\w+) on (https?://[^,\\s]+)(?:, admin on (https?://\\S+))?");

  private final Path dataDir;
  private final List<String> extraArgs;
  private final Map<String, String> environment;
  private final OptionalInt descriptorLimit;
  private final List<String> wrapper;
  private final String host;
  private final ConcurrentLinkedQueue<String> output = new ConcurrentLinkedQueue<>();
  private Process process;
  private boolean paused;
  private URI endpoint;
  private Optional<URI> adminEndpoint = Optional.empty();

  private ServerProcess(
      Path dataDir,
      List<String> extraArgs,
      Map<String, String> environment,
      OptionalInt descriptorLimit,
      List<String> wrapper,
      String host) {
    this.dataDir = dataDir;
    this.extraArgs = List.copyOf(extraArgs);
    this.environment = Map.copyOf(environment);
    this.descriptorLimit = descriptorLimit;
    this.wrapper = List.copyOf(wrapper);
    this.host = host;
  }

  /**
   * Starts a server with its data under {@code dataDir}.
   *
   * @param extraArgs more {@code pico} arguments, e.g. {@code --protocol ds} (global options go
   *     before {@code serve}; use {@link #startWith} for those)
   */
  public static ServerProcess start(Path dataDir, String... extraArgs) {
    return startWith(dataDir, List.of(), List.of(extraArgs));
  }

  /** Starts a server with {@code globalArgs} before {@code serve} and {@code serveArgs} after. */
  public static ServerProcess startWith(
      Path dataDir, List<String> globalArgs, List<String> serveArgs) {
    return startWith(dataDir, Map.of(), globalArgs, serveArgs);
  }

  /**
   * Starts a server as {@link #startWith(Path, List, List)} does, with {@code environment} added to
   * its environment (e.g. the {@code AWS_*} credentials of an S3 server), here and at every {@link
   * #restart}.
   */
  public static ServerProcess startWith(
      Path dataDir,
      Map<String, String> environment,
      List<String> globalArgs,
      List<String> serveArgs) {
    return startWrapped(dataDir, environment, List.of(), "127.0.0.1", globalArgs, serveArgs);
  }

  /**
   * Starts a server as {@link #startWith(Path, Map, List, List)} does, its command run by {@code
   * wrapper} (e.g. {@code ip netns exec NAME}, which must exec it: {@link #pause} signals the pid
   * it started), listening on {@code host} (both listeners, on a free port each).
   */
  public static ServerProcess startWrapped(
      Path dataDir,
      Map<String, String> environment,
      List<String> wrapper,
      String host,
      List<String> globalArgs,
      List<String> serveArgs) {
    List<String> args = new ArrayList<>(globalArgs);
    args.add("serve");
    args.addAll(serveArgs);
    ServerProcess server =
        new ServerProcess(dataDir, args, environment, OptionalInt.empty(), wrapper, host);
    server.launch(host + ":0", host + ":0");
    return server;
  }

  /**
   * Starts a server whose process may hold at most {@code limit} file descriptors: {@code ulimit
   * -n} sets the hard limit too, so the JVM cannot raise it.
   */
  public static ServerProcess startWithDescriptorLimit(
      Path dataDir, int limit, String... serveArgs) {
    List<String> args = new ArrayList<>(List.of("serve"));
    args.addAll(List.of(serveArgs));
    ServerProcess server =
        new ServerProcess(dataDir, args, Map.of(), OptionalInt.of(limit), List.of(), "127.0.0.1");
    server.launch("127.0.0.1:0", "127.0.0.1:0");
    return server;
  }

  /** The repository root: where {@code bin/pico} is. */
  public static Path root() {
    String root = System.getProperty("picomq.root");
    Path dir = root != null ? Path.of(root) : Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("bin/pico"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("cannot find bin/pico above " + root);
    }
    return dir;
  }

  /**
   * A {@code bin/pico} command line, run with the jar the build made (no rebuild inside a test).
   */
  public static ProcessBuilder launcher(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(root().resolve("bin/pico").toString());
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("PICO_NO_BUILD", "1");
    // Tests choose every setting themselves; nothing leaks in from the developer's shell.
    builder
        .environment()
        .keySet()
        .removeIf(name -> name.startsWith("PICO_") && !name.equals("PICO_NO_BUILD"));
    return builder;
  }

  private void launch(String listen, String adminListen) {
    List<String> args = new ArrayList<>(extraArgs);
    args.addAll(List.of("--listen", listen, "--admin-listen", adminListen));
    // Defaults under the data directory, unless the test names its own (a cluster shares both).
    if (!given("--meta-url")) {
      args.addAll(List.of("--meta-url", "sqlite:" + dataDir.resolve("meta.db")));
    }
    if (!given("--storage")) {
      args.add("--storage=-2@file://" + dataDir.resolve("objects"));
    }
    try {
      Files.createDirectories(dataDir);
      ProcessBuilder builder = launcher(args);
      builder.environment().putAll(environment);
      if (descriptorLimit.isPresent()) {
        List<String> limited =
            new ArrayList<>(
                List.of(
                    "bash",
                    "-c",
                    "ulimit -n " + descriptorLimit.getAsInt() + " && exec \"$@\"",
                    "pico"));
        limited.addAll(builder.command());
        builder.command(limited);
      }
      if (!wrapper.isEmpty()) {
        List<String> wrapped = new ArrayList<>(wrapper);
        wrapped.addAll(builder.command());
        builder.command(wrapped);
      }
      process = builder.redirectErrorStream(true).start();
      paused = false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    awaitServing();
  }

  private boolean given(String option) {
    return extraArgs.stream().anyMatch(arg -> arg.equals(option) || arg.startsWith(option + "="));
  }

  private void awaitServing() {
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<Matcher> serving = new CompletableFuture<>();
    // A platform thread: a virtual one blocked in this read would pin a carrier thread (there
    // may be only two), starving the client threads the test itself runs.
    Thread.ofPlatform()
        .daemon()
        .name("pico-serve-output")
        .start(
            () -> {
              try {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                  output.add(line);
                  Matcher matcher = SERVING.matcher(line);
                  if (matcher.find()) {
                    serving.complete(matcher);
                  }
                }
              } catch (IOException e) {
                // the process ended
              }
              serving.completeExceptionally(
                  new IllegalStateException("pico serve exited:\n" + String.join("\n", output)));
            });
    try {
      Matcher matcher = serving.get(90, TimeUnit.SECONDS);
      endpoint = URI.create(matcher.group(2));
      adminEndpoint = Optional.ofNullable(matcher.group(3)).map(URI::create);
    } catch (Exception e) {
      process.destroyForcibly();
      throw new IllegalStateException("pico serve did not start:\n" + String.join("\n", output), e);
    }
  }

  /** Where the node serves its protocol, e.g. {@code http://127.0.0.1:40123}. */
  public URI endpoint() {
    return endpoint;
  }

  /** Where the admin listener serves. */
  public URI adminEndpoint() {
    return adminEndpoint.orElseThrow(() -> new IllegalStateException("no admin listener"));
  }

  /** What the server printed so far (stdout and stderr interleaved). */
  public List<String> output() {
    return List.copyOf(output);
  }

  /** Kills the process with SIGKILL: nothing is flushed, nothing shuts down cleanly. */
  public void kill() {
    process.destroyForcibly();
    waitForExit();
  }

  /**
   * Stops the process with SIGSTOP: it keeps its sockets and files and does nothing (no liveness
   * renewal, no answer) until {@link #resume}, like a process stalled by the machine.
   */
  public void pause() {
    signal("STOP");
    paused = true;
  }

  /** Resumes a {@link #pause paused} process with SIGCONT. */
  public void resume() {
    signal("CONT");
    paused = false;
  }

  /**
   * Whether the node answers {@code GET /ready} on its admin listener with 200 (within 2 s).
   *
   * @throws IllegalStateException if the process has exited
   */
  public boolean isReady() {
    if (!process.isAlive()) {
      throw new IllegalStateException("pico serve exited:\n" + String.join("\n", output));
    }
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
      return http.send(
                  HttpRequest.newBuilder(adminEndpoint().resolve("/ready"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Whether the process is running (it may be {@link #pause paused}). */
  public boolean isAlive() {
    return process.isAlive();
  }

  private void signal(String name) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + name, e);
    }
  }

  /** Sends SIGHUP: the server reads its TLS certificate files again. */
  public void hangUp() {
    signal("HUP");
  }

  /** Stops the process with SIGTERM (a graceful shutdown) and waits for it. */
  public void stop() {
    if (paused && process.isAlive()) {
      resume(); // a stopped process handles SIGTERM only once it runs again
    }
    process.destroy();
    waitForExit();
  }

  /**
   * Starts a new process on the same data directory and the same ports (after {@link #kill} or
   * {@link #stop}; stops a running one gracefully first).
   */
  public void restart() {
    if (process.isAlive()) {
      stop();
    }
    String listen = endpoint.getAuthority();
    String admin = adminEndpoint.map(URI::getAuthority).orElse(host + ":0");
    launch(listen, admin);
  }

  private void waitForExit() {
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      stop();
    }
  }
}
