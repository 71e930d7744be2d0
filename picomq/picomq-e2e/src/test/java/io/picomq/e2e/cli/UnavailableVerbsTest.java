package io.picomq.e2e.cli;

import static io.picomq.e2e.cli.PicoCli.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.e2e.FaultProxy;
import io.picomq.e2e.FaultProxy.Fault;
import io.picomq.e2e.ServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/pico} against a real server behind a {@link FaultProxy} that answers {@code 503}: read
 * verbs retry by themselves, {@code append} only with {@code --retry}, and giving up is exit code 4
 * with one line saying the server is unavailable.
 */
class UnavailableVerbsTest {
  @TempDir Path dir;

  @Test
  void aServerThatStaysUnavailableIsExitCode4AtOnceWhenItsRetryAfterIsBeyondTheBudget()
      throws Exception {
    try (ServerProcess server = ServerProcess.start(dir.resolve("server"));
        FaultProxy proxy =
            new FaultProxy(server.endpoint(), FaultProxy.always(Fault.REFUSE), "120")) {
      PicoCli pico = new PicoCli(dir.resolve("config.json"));
      long start = System.nanoTime();
      PicoCli.Result read = pico.run(at(proxy.endpoint(), "read", "/s"));
      assertThat(read.exitCode()).as("%s", read).isEqualTo(4);
      assertThat(read.errLines())
          .singleElement()
          .isEqualTo(
              "pico: server unavailable: injected by the test's proxy (unavailable); it suggests"
                  + " retrying after 120s");
      // The server asked for 2 minutes, more than the 30 s a verb retries: no point waiting.
      assertThat(proxy.requests()).isEqualTo(1);
      assertThat(System.nanoTime() - start).isLessThan(20_000_000_000L);

      PicoCli.Result head = pico.run(at(proxy.endpoint(), "head", "/s"));
      assertThat(head.exitCode()).as("%s", head).isEqualTo(4);
      assertThat(head.stderr()).startsWith("pico: server unavailable: ");
    }
  }

  @Test
  void readVerbsRetryAndAppendRetriesOnlyWithTheFlag() throws Exception {
    AtomicReference<Fault> next = new AtomicReference<>(Fault.PASS);
    AtomicInteger posts = new AtomicInteger();
    try (ServerProcess server = ServerProcess.start(dir.resolve("server"));
        FaultProxy proxy =
            new FaultProxy(
                server.endpoint(),
                request -> {
                  if (request.method().equals("POST")) {
                    posts.incrementAndGet();
                  }
                  return next.getAndSet(Fault.PASS);
                },
                "1")) {
      PicoCli pico = new PicoCli(dir.resolve("config.json"));
      next.set(Fault.REFUSE);
      ClientVerbsTest.assertOk(pico.run(at(proxy.endpoint(), "create", "/u")));

      next.set(Fault.REFUSE);
      PicoCli.Result refused =
          pico.run("a\n".getBytes(StandardCharsets.UTF_8), at(proxy.endpoint(), "append", "/u"));
      assertThat(refused.exitCode()).as("%s", refused).isEqualTo(4);
      assertThat(refused.stderr())
          .startsWith("pico: server unavailable: injected by the test's proxy (unavailable)")
          .contains("the request of 1 record was not acknowledged (--retry resends it)");
      assertThat(posts).hasValue(1);

      next.set(Fault.REFUSE);
      PicoCli.Result retried =
          pico.run(
              "a\n".getBytes(StandardCharsets.UTF_8),
              at(proxy.endpoint(), "append", "--retry=10s", "/u"));
      ClientVerbsTest.assertOk(retried);
      assertThat(retried.stderr()).contains("appended 1 record to /u");
      assertThat(posts).hasValue(3);

      next.set(Fault.REFUSE);
      PicoCli.Result read = pico.run(at(proxy.endpoint(), "read", "/u"));
      ClientVerbsTest.assertOk(read);
      assertThat(read.out()).isEqualTo("a\n");
    }
  }
}
