package io.picomq.frontend.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.frontend.Frontend;
import io.picomq.frontend.FrontendConfig;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.stream.AppendRequest;
import io.picomq.stream.AppendVerdict;
import io.picomq.stream.CreateOutcome;
import io.picomq.stream.CreateRequest;
import io.picomq.stream.DeleteOutcome;
import io.picomq.stream.HeadOutcome;
import io.picomq.stream.ListQuery;
import io.picomq.stream.ReadOutcome;
import io.picomq.stream.ReadWindow;
import io.picomq.stream.StreamPage;
import io.picomq.stream.StreamService;
import io.picomq.stream.StreamUnavailableException;
import io.picomq.stream.StreamUnavailableException.Reason;
import io.picomq.stream.TrimOutcome;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both protocols answer a {@link StreamUnavailableException} from any service call, whether the
 * handler waited for it on its thread or answered when it completed: 503 (507 for a full disk) with
 * {@code Retry-After} and the JSON error body, never 500; and anything else still answers 500.
 */
class UnavailableAnswerTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @ParameterizedTest
  @EnumSource(ListenerProtocol.class)
  void everyCallAnswersTheTypedStatus(ListenerProtocol protocol) throws Exception {
    StreamUnavailableException storage =
        new StreamUnavailableException(
            Reason.STORAGE_UNAVAILABLE, true, "wal storage: injected", null);
    try (Frontend frontend = start(protocol, () -> storage)) {
      String base =
          "http://127.0.0.1:"
              + frontend.address().getPort()
              + (protocol == ListenerProtocol.DS ? "/v1/stream" : "");
      for (String method : new String[] {"PUT", "POST", "GET", "HEAD", "DELETE"}) {
        HttpResponse<String> answer = send(method, base + "/s");
        assertThat(answer.statusCode()).as(method).isEqualTo(503);
        assertThat(answer.headers().firstValue("retry-after")).as(method).hasValue("5");
        if (!method.equals("HEAD")) {
          assertThat(answer.body())
              .as(method)
              .contains("\"error\":\"storage_unavailable\"")
              .contains("may still complete")
              .contains("\"may_have_completed\":true");
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(ListenerProtocol.class)
  void aFullDiskIs507(ListenerProtocol protocol) throws Exception {
    StreamUnavailableException full =
        new StreamUnavailableException(Reason.DISK_FULL, false, "no space", null);
    try (Frontend frontend = start(protocol, () -> full)) {
      String base =
          "http://127.0.0.1:"
              + frontend.address().getPort()
              + (protocol == ListenerProtocol.DS ? "/v1/stream" : "");
      HttpResponse<String> answer = send("POST", base + "/s");
      assertThat(answer.statusCode()).isEqualTo(507);
      assertThat(answer.headers().firstValue("retry-after")).hasValue("30");
      assertThat(answer.body()).contains("\"disk_full\"").contains("\"may_have_completed\":false");
    }
  }

  @ParameterizedTest
  @EnumSource(ListenerProtocol.class)
  void aBugIsStill500(ListenerProtocol protocol) throws Exception {
    try (Frontend frontend = start(protocol, () -> new IllegalStateException("a bug"))) {
      String base =
          "http://127.0.0.1:"
              + frontend.address().getPort()
              + (protocol == ListenerProtocol.DS ? "/v1/stream" : "");
      assertThat(send("POST", base + "/s").statusCode()).isEqualTo(500);
    }
  }

  private HttpResponse<String> send(String method, String uri) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(uri))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "text/plain")
            .method(
                method,
                method.equals("POST")
                    ? HttpRequest.BodyPublishers.ofString("x")
                    : HttpRequest.BodyPublishers.noBody())
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static Frontend start(ListenerProtocol protocol, Supplier<RuntimeException> failure)
      throws InterruptedException {
    return Frontend.start(
        FrontendConfig.builder().port(0).protocol(protocol).ioThreads(1).build(),
        new Failing(failure),
        InstantSource.system());
  }

  /** A stream service whose every call fails with {@code failure}. */
  private record Failing(Supplier<RuntimeException> failure) implements StreamService {
    private <T> CompletableFuture<T> fail() {
      return CompletableFuture.failedFuture(failure.get());
    }

    @Override
    public CompletableFuture<CreateOutcome> create(String name, CreateRequest request) {
      return fail();
    }

    @Override
    public CompletableFuture<AppendVerdict> append(String name, AppendRequest request) {
      return fail();
    }

    @Override
    public CompletableFuture<ReadOutcome> read(String name, ReadWindow request) {
      return fail();
    }

    @Override
    public CompletableFuture<Void> awaitBeyond(String name, long seq) {
      return fail();
    }

    @Override
    public CompletableFuture<HeadOutcome> head(String name) {
      return fail();
    }

    @Override
    public CompletableFuture<DeleteOutcome> delete(String name) {
      return fail();
    }

    @Override
    public CompletableFuture<TrimOutcome> trim(String name, long beforeSeq) {
      return fail();
    }

    @Override
    public CompletableFuture<StreamPage> list(ListQuery request) {
      return fail();
    }
  }
}
