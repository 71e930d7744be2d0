package io.picomq.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.picomq.e2e.ServerProcess;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code pico serve} whose {@code file://} storage is a 4 MiB tmpfs the test mounts (so it runs
 * as root only; elsewhere it is skipped): appends fill it, and from then on every answer is a typed
 * 507 within the request timeout, {@code /ready} is 503, and nothing acknowledged is lost. Growing
 * the volume lets the node recover by itself: ready again, appends accepted, every acknowledged
 * record readable at its acknowledged seq, before and after a restart.
 */
class FullVolumeTest {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration BOUND = REQUEST_TIMEOUT.plusSeconds(8);
  private static final int RECORD_BYTES = 300 * 1024;

  @TempDir Path dir;
  private Path volume;
  private boolean mounted;

  @AfterEach
  void unmount() throws Exception {
    if (mounted) {
      run("umount", "-l", volume.toString());
    }
  }

  @Test
  void aFullVolumeAnswers507UntilItHasRoomAgainAndLosesNothing() throws Exception {
    volume = dir.resolve("volume");
    Files.createDirectories(volume);
    mounted = run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", volume.toString()) == 0;
    assumeTrue(mounted, "cannot mount a tmpfs here (needs root)");
    Answers answers = new Answers(BOUND);
    try (ServerProcess server =
        ServerProcess.start(
            dir.resolve("node"),
            "--storage=-2@file://" + volume,
            "--request-timeout-sec",
            Long.toString(REQUEST_TIMEOUT.toSeconds()))) {
      URI stream = server.endpoint().resolve("/full/volume");
      assertThat(answers.send("PUT", stream, Map.of(), null).statusCode()).isEqualTo(201);

      // Fill the volume: 4 MiB takes about 13 records of 300 KiB.
      List<Long> acked = new ArrayList<>();
      int refused = 0;
      for (int i = 0; i < 40 && refused < 3; i++) {
        HttpResponse<byte[]> answer = answers.send("POST", stream, OCTETS, record(i));
        if (answer.statusCode() == 200) {
          acked.add(Long.parseLong(Answers.header(answer, "pico-start-seq").orElseThrow()));
        } else {
          assertThat(answer.statusCode()).isEqualTo(507);
          assertThat(new String(answer.body(), StandardCharsets.UTF_8))
              .contains("\"disk_full\"")
              .contains("\"may_have_completed\":true");
          refused++;
        }
      }
      assertThat(refused).as("appends refused once the volume is full").isEqualTo(3);
      assertThat(answers.ready(server.adminEndpoint())).isEqualTo(503);
      // Reads of what is acknowledged still answer, from the caches.
      assertThat(answers.send("HEAD", stream, Map.of(), null).statusCode()).isEqualTo(200);

      assertThat(run("mount", "-o", "remount,size=64m", volume.toString())).isZero();
      Answers.awaitTrue(
          "ready after the volume grew",
          Duration.ofSeconds(40),
          () -> answers.ready(server.adminEndpoint()) == 200);
      // Ready means storage answers again; the WAL may still be working off its backlog, so an
      // append can still answer a typed 503 for a moment (not acknowledged: not checked below).
      List<HttpResponse<byte[]>> after = new ArrayList<>();
      Answers.awaitTrue(
          "an append accepted after the volume grew",
          Duration.ofSeconds(40),
          () -> {
            HttpResponse<byte[]> answer = answers.send("POST", stream, OCTETS, record(1000));
            assertThat(answer.statusCode()).isIn(200, 503);
            after.add(answer);
            return answer.statusCode() == 200;
          });
      acked.add(Long.parseLong(Answers.header(after.getLast(), "pico-start-seq").orElseThrow()));

      assertAckedReadable(answers, stream, acked);
      server.restart();
      assertAckedReadable(answers, server.endpoint().resolve("/full/volume"), acked);
    }
  }

  private static final Map<String, String> OCTETS =
      Map.of("Content-Type", "application/octet-stream");

  /** Each acknowledged seq holds a record this test sent (its index in the first 8 bytes). */
  private static void assertAckedReadable(Answers answers, URI stream, List<Long> acked)
      throws Exception {
    for (long seq : acked) {
      HttpResponse<byte[]> read =
          answers.send(
              "GET", URI.create(stream + "?seq=" + seq + "&count=1&format=raw"), Map.of(), null);
      assertThat(read.statusCode()).as("read of acknowledged seq %s", seq).isEqualTo(200);
      assertThat(read.body().length).as("record at seq %s", seq).isEqualTo(RECORD_BYTES);
      assertThat(new String(Arrays.copyOf(read.body(), 6), StandardCharsets.US_ASCII))
          .startsWith("rec");
    }
  }

  private static byte[] record(int index) {
    byte[] body = new byte[RECORD_BYTES];
    Arrays.fill(body, (byte) ('a' + index % 26));
    byte[] label =
        String.format(java.util.Locale.ROOT, "rec%05d", index).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(label, 0, body, 0, label.length);
    return body;
  }

  private static int run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return -1;
    }
    return process.exitValue();
  }
}
