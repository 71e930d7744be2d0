package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ErrorAnswersTest {

  private static PicoException map(
      Protocol protocol, int status, Map<String, String> headers, String body) {
    Map<String, List<String>> multi = new java.util.HashMap<>();
    headers.forEach((k, v) -> multi.put(k, List.of(v)));
    return ErrorAnswers.from(
        protocol,
        status,
        HttpHeaders.of(multi, (a, b) -> true),
        body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void eachStatusAndCodeHasItsException() {
    assertThat(map(Protocol.PICO, 404, Map.of(), ""))
        .isInstanceOf(StreamNotFoundException.class)
        .extracting(PicoException::errorCode)
        .isEqualTo("stream_not_found");
    assertThat(map(Protocol.PICO, 409, Map.of(), "{\"error\":\"stream_closed\",\"message\":\"m\"}"))
        .isInstanceOf(StreamClosedException.class);
    assertThat(map(Protocol.PICO, 409, Map.of(), "{\"error\":\"stream_conflict\"}"))
        .isExactlyInstanceOf(ConflictException.class);
    assertThat(map(Protocol.DURABLE_STREAMS, 403, Map.of(), "{\"error\":\"stale_producer_epoch\"}"))
        .isInstanceOf(StaleProducerEpochException.class);
    assertThat(map(Protocol.PICO, 401, Map.of(), "{\"error\":\"unauthorized\"}"))
        .isExactlyInstanceOf(UnauthorizedException.class);
    assertThat(map(Protocol.DURABLE_STREAMS, 403, Map.of(), "{\"error\":\"forbidden\"}"))
        .isExactlyInstanceOf(ForbiddenException.class);
    assertThat(map(Protocol.PICO, 413, Map.of(), "{\"error\":\"body_too_large\"}"))
        .isInstanceOf(BadRequestException.class);
    assertThat(map(Protocol.PICO, 503, Map.of(), "busy"))
        .isInstanceOfSatisfying(
            ServerException.class,
            e -> {
              assertThat(e.isRetriable()).isTrue();
              assertThat(e.message()).isEqualTo("busy");
              assertThat(e.errorCode()).isEqualTo("http_503");
            });
  }

  @Test
  void numbersComeFromTheBodyOrTheProtocolsHeaders() {
    assertThat(map(Protocol.PICO, 409, Map.of(), "{\"error\":\"seq_mismatch\",\"next_seq\":5}"))
        .isInstanceOfSatisfying(
            SeqMismatchException.class, e -> assertThat(e.nextSeq()).isEqualTo(5));
    assertThat(
            map(
                Protocol.PICO,
                409,
                Map.of("Pico-Expected-Seq", "1", "Pico-Received-Seq", "3"),
                "{\"error\":\"producer_seq_gap\"}"))
        .isInstanceOfSatisfying(
            ProducerConflictException.class,
            e -> {
              assertThat(e.expectedSeq()).isEqualTo(1);
              assertThat(e.receivedSeq()).isEqualTo(3);
            });
    assertThat(
            map(
                Protocol.DURABLE_STREAMS,
                409,
                Map.of("Producer-Expected-Seq", "2", "Producer-Received-Seq", "4"),
                "{\"error\":\"producer_seq_gap\"}"))
        .isInstanceOfSatisfying(
            ProducerConflictException.class, e -> assertThat(e.expectedSeq()).isEqualTo(2));
  }

  @Test
  void theWholeBodyIsKept() {
    PicoException e =
        map(
            Protocol.PICO,
            400,
            Map.of(),
            "{\"error\":\"bad_request\",\"message\":\"no\",\"extra\":1}");
    assertThat(e.body().path("extra").asInt()).isEqualTo(1);
    assertThat(e.getMessage()).isEqualTo("400 bad_request: no");
  }

  @Test
  void unavailableAnswersCarryCodeMessageAndRetryAfter() {
    assertThat(
            map(
                Protocol.PICO,
                503,
                Map.of("Retry-After", "5"),
                "{\"error\":\"storage_unavailable\",\"message\":\"the store is failing\"}"))
        .isInstanceOfSatisfying(
            ServiceUnavailableException.class,
            e -> {
              assertThat(e.status()).isEqualTo(503);
              assertThat(e.errorCode()).isEqualTo("storage_unavailable");
              assertThat(e.message()).isEqualTo("the store is failing");
              assertThat(e.retryAfter()).contains(Duration.ofSeconds(5));
              assertThat(e.isRetriable()).isTrue();
              assertThat(e.isStorageFull()).isFalse();
            });
    // Durable Streams: its own error form, the same header.
    assertThat(map(Protocol.DURABLE_STREAMS, 503, Map.of("Retry-After", " 2 "), "busy"))
        .isInstanceOfSatisfying(
            ServiceUnavailableException.class,
            e -> {
              assertThat(e.errorCode()).isEqualTo("http_503");
              assertThat(e.message()).isEqualTo("busy");
              assertThat(e.retryAfter()).contains(Duration.ofSeconds(2));
            });
    assertThat(map(Protocol.PICO, 507, Map.of(), "{\"error\":\"storage_full\"}"))
        .isInstanceOfSatisfying(
            ServiceUnavailableException.class,
            e -> {
              assertThat(e.isStorageFull()).isTrue();
              assertThat(e.retryAfter()).isEmpty();
            });
    assertThat(map(Protocol.PICO, 500, Map.of("Retry-After", "5"), "{\"error\":\"internal\"}"))
        .isExactlyInstanceOf(ServerException.class);
  }

  @Test
  void retryAfterIsSecondsOrAnHttpDate() {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");
    assertThat(ErrorAnswers.retryAfter(headers("0"), now)).contains(Duration.ZERO);
    assertThat(ErrorAnswers.retryAfter(headers("120"), now)).contains(Duration.ofSeconds(120));
    assertThat(ErrorAnswers.retryAfter(headers("99999999999999999999999"), now))
        .contains(Duration.ofSeconds(Long.MAX_VALUE));
    assertThat(ErrorAnswers.retryAfter(headers("Thu, 01 Jan 2026 00:00:30 GMT"), now))
        .contains(Duration.ofSeconds(30));
    assertThat(ErrorAnswers.retryAfter(headers("Wed, 31 Dec 2025 23:00:00 GMT"), now))
        .contains(Duration.ZERO);
    assertThat(ErrorAnswers.retryAfter(headers("-5"), now)).isEmpty();
    assertThat(ErrorAnswers.retryAfter(headers("soon"), now)).isEmpty();
    assertThat(ErrorAnswers.retryAfter(headers(""), now)).isEmpty();
    assertThat(ErrorAnswers.retryAfter(HttpHeaders.of(Map.of(), (a, b) -> true), now)).isEmpty();
  }

  private static HttpHeaders headers(String retryAfter) {
    return HttpHeaders.of(Map.of("Retry-After", List.of(retryAfter)), (a, b) -> true);
  }
}
