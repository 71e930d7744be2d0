package io.picomq.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real S3 server in a process of its own, so that a test can do to it what happens to a real one:
 * stop it ({@code SIGSTOP}: connections open, nothing answers), resume it, kill it ({@code
 * SIGKILL}) and start it again. It is S3Proxy ({@code org.gaul.s3proxy.Main}, from the test JVM's
 * class path) on a free loopback port, keeping objects in a directory (jclouds {@code filesystem})
 * so they outlive a kill, and checking AWS SigV2/SigV4 signatures with {@link #ACCESS_KEY} and
 * {@link #SECRET_KEY}.
 *
 * <p>A {@code pico serve} reaches it with {@link #storage} as its {@code --storage} and {@link
 * #credentials} in its environment. Not thread-safe: the test thread drives it.
 */
public final class S3ProxyProcess implements AutoCloseable {

  /** The access key the server accepts. */
  public static final String ACCESS_KEY = "picomq-access";

  /** The secret key the server accepts. */
  public static final String SECRET_KEY = "picomq-secret";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Path dir;
  private final String bucket;
  private final int port;
  private Process process;

  private S3ProxyProcess(Path dir, String bucket, int port) {
    this.dir = dir;
    this.bucket = bucket;
    this.port = port;
  }

  /**
   * Starts a server keeping its objects under {@code dir}, with an empty {@code bucket} (or the
   * bucket as an earlier server on {@code dir} left it).
   */
  public static S3ProxyProcess start(Path dir, String bucket) {
    S3ProxyProcess server = new S3ProxyProcess(dir, bucket, freePort());
    try {
      // The filesystem backend's buckets are the directories under its base directory.
      Files.createDirectories(dir.resolve("objects").resolve(bucket));
      server.writeProperties();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.launch();
    return server;
  }

  /** The server's base URL, e.g. {@code http://127.0.0.1:41234}; the same after a restart. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The bucket it was started with. */
  public String bucket() {
    return bucket;
  }

  /**
   * A {@code pico serve --storage} value for {@link #bucket} on this server.
   *
   * @param bucketId the engine's id for the bucket, e.g. {@code -2}
   */
  public String storage(int bucketId) {
    return storage(bucketId, endpoint());
  }

  /**
   * A {@code pico serve --storage} value for {@link #bucket} reached at {@code via}: a relay in
   * front of this server, for a process that cannot reach the loopback address (another network
   * namespace).
   */
  public String storage(int bucketId, URI via) {
    return bucketId + "@s3://" + bucket + "?region=us-east-1&endpoint=" + via + "&pathStyle=true";
  }

  /** The environment a process needs to sign its requests to this server. */
  public Map<String, String> credentials() {
    return Map.of(
        "AWS_ACCESS_KEY_ID", ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY", SECRET_KEY,
        "AWS_REGION", "us-east-1");
  }

  /** Stops the process ({@code SIGSTOP}): it keeps its connections and answers nothing. */
  public void pause() {
    signal("STOP");
  }

  /** Resumes a {@link #pause paused} process ({@code SIGCONT}). */
  public void resume() {
    signal("CONT");
  }

  /** Kills the process ({@code SIGKILL}) and waits for it to be gone. */
  public void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("S3Proxy did not die of SIGKILL: " + process.pid());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing S3Proxy", e);
    }
  }

  /** Starts a new process on the same directory and port, killing a running one first. */
  public void restart() {
    if (process.isAlive()) {
      kill();
    }
    launch();
  }

  /** What the server printed so far. */
  public String log() {
    try {
      return Files.readString(dir.resolve("s3proxy.log"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      kill();
    }
  }

  private void writeProperties() throws IOException {
    Properties properties = new Properties();
    properties.setProperty("jclouds.provider", "filesystem");
    properties.setProperty("jclouds.filesystem.basedir", dir.resolve("objects").toString());
    properties.setProperty("jclouds.identity", "unused");
    properties.setProperty("jclouds.credential", "unused");
    properties.setProperty("s3proxy.endpoint", endpoint().toString());
    properties.setProperty("s3proxy.authorization", "aws-v2-or-v4");
    properties.setProperty("s3proxy.identity", ACCESS_KEY);
    properties.setProperty("s3proxy.credential", SECRET_KEY);
    try (Writer out = Files.newBufferedWriter(dir.resolve("s3proxy.properties"))) {
      properties.store(out, "S3ProxyProcess");
    }
  }

  private void launch() {
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            // A small server on a shared machine: a small heap, a serial GC, C1 only (starts
            // faster).
            "-Xmx256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            // Without a console S3Proxy sends System.err to its logger; slf4j-simple (the binding
            // on the test class path) writes to System.err by default: an endless loop.
            "-Dorg.slf4j.simpleLogger.logFile=System.out",
            "-cp",
            System.getProperty("java.class.path"),
            "org.gaul.s3proxy.Main",
            "--properties",
            dir.resolve("s3proxy.properties").toString());
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("s3proxy.log").toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    awaitListening();
  }

  /** Waits until the server answers HTTP (any status: an unsigned request gets a 403). */
  private void awaitListening() {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest probe =
        HttpRequest.newBuilder(endpoint().resolve("/")).timeout(Duration.ofSeconds(5)).build();
    try {
      Awaitility.await("S3Proxy listening")
          .atMost(START_TIMEOUT)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new IllegalStateException("S3Proxy exited at start:\n" + log());
                }
                try {
                  http.send(probe, HttpResponse.BodyHandlers.discarding());
                  return true;
                } catch (IOException notYet) {
                  return false; // not listening, or not serving, yet
                }
              });
    } catch (ConditionTimeoutException e) {
      process.destroyForcibly();
      throw new IllegalStateException("S3Proxy did not listen within " + START_TIMEOUT + log(), e);
    }
  }

  private void signal(String name) {
    if (!process.isAlive()) {
      throw new IllegalStateException("S3Proxy is not running; cannot send SIG" + name);
    }
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
      throw new IllegalStateException("interrupted while signalling S3Proxy", e);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
