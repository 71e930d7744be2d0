package io.picomq.s3stream.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.s3stream.objectstore.ObjectNotFoundException;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import io.picomq.s3stream.objectstore.ObjectStoreException.Kind;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** How S3 answers and SDK failures map to kinds: the table the retry decorator depends on. */
class S3ErrorsTest {

  static Stream<Arguments> serviceErrors() {
    return Stream.of(
        Arguments.of(503, "SlowDown", Kind.TRANSIENT),
        Arguments.of(503, "ServiceUnavailable", Kind.TRANSIENT),
        Arguments.of(500, "InternalError", Kind.TRANSIENT),
        Arguments.of(502, null, Kind.TRANSIENT),
        Arguments.of(504, null, Kind.TRANSIENT),
        Arguments.of(429, "TooManyRequests", Kind.TRANSIENT),
        Arguments.of(400, "SlowDown", Kind.TRANSIENT),
        Arguments.of(400, "RequestTimeout", Kind.TRANSIENT),
        Arguments.of(408, null, Kind.TRANSIENT),
        Arguments.of(501, "NotImplemented", Kind.PERMANENT),
        Arguments.of(404, "NoSuchKey", Kind.NOT_FOUND),
        Arguments.of(404, null, Kind.NOT_FOUND),
        Arguments.of(404, "NoSuchBucket", Kind.PERMANENT),
        Arguments.of(403, "AccessDenied", Kind.ACCESS_DENIED),
        Arguments.of(403, "SignatureDoesNotMatch", Kind.ACCESS_DENIED),
        Arguments.of(400, "InvalidAccessKeyId", Kind.ACCESS_DENIED),
        Arguments.of(416, "InvalidRange", Kind.INVALID_ARGUMENT),
        Arguments.of(400, "InvalidArgument", Kind.PERMANENT),
        Arguments.of(409, "BucketNotEmpty", Kind.PERMANENT));
  }

  @ParameterizedTest(name = "HTTP {0} {1} -> {2}")
  @MethodSource("serviceErrors")
  void serviceErrorsOnAKey(int status, String code, Kind expected) {
    ObjectStoreException e = S3Errors.classify("GET 'k'", "k", s3Exception(status, code), false);
    assertThat(e.kind()).isEqualTo(expected);
    assertThat(e.isRetryable()).isEqualTo(expected == Kind.TRANSIENT);
    if (expected == Kind.NOT_FOUND) {
      assertThat(e).isInstanceOf(ObjectNotFoundException.class);
    }
  }

  @ParameterizedTest(name = "HTTP {0} {1}")
  @MethodSource("serviceErrors")
  void withoutAKeyNothingIsNotFound(int status, String code, Kind onAKey) {
    ObjectStoreException e = S3Errors.classify("LIST ''", null, s3Exception(status, code), false);
    assertThat(e.kind()).isEqualTo(onAKey == Kind.NOT_FOUND ? Kind.PERMANENT : onAKey);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("clientErrors")
  void clientSideFailures(Throwable failure, Kind expected) {
    assertThat(S3Errors.classify("PUT 'k'", "k", failure, false).kind()).isEqualTo(expected);
  }

  static Stream<Arguments> clientErrors() {
    return Stream.of(
        Arguments.of(
            SdkClientException.create(
                "read timed out", new SocketTimeoutException("Read timed out")),
            Kind.TRANSIENT),
        Arguments.of(ApiCallAttemptTimeoutException.create(1000), Kind.TRANSIENT),
        Arguments.of(
            SdkClientException.create(
                "Unable to load credentials from any of the providers in the chain",
                new IOException("connect to 169.254.169.254 refused")),
            Kind.ACCESS_DENIED),
        Arguments.of(SdkClientException.create("Unable to marshall request"), Kind.PERMANENT),
        Arguments.of(new IOException("Connection reset"), Kind.TRANSIENT),
        Arguments.of(new IllegalStateException("a bug"), Kind.PERMANENT));
  }

  @ParameterizedTest
  @MethodSource("abortsWhileClosing")
  void abortsWhileClosingAreClosed(Throwable failure) {
    assertThat(S3Errors.classify("GET 'k'", "k", failure, true).kind()).isEqualTo(Kind.CLOSED);
  }

  static Stream<Throwable> abortsWhileClosing() {
    return Stream.of(AbortedException.create("aborted"), new InterruptedException());
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("keyErrors")
  void deleteObjectsKeyErrors(String code, Kind expected) {
    assertThat(S3Errors.classifyKeyError("DELETE", "k", code, "message").kind())
        .isEqualTo(expected);
  }

  static Stream<Arguments> keyErrors() {
    return Stream.of(
        Arguments.of("InternalError", Kind.TRANSIENT),
        Arguments.of("SlowDown", Kind.TRANSIENT),
        Arguments.of("AccessDenied", Kind.ACCESS_DENIED),
        Arguments.of("InvalidArgument", Kind.PERMANENT),
        Arguments.of(null, Kind.PERMANENT));
  }

  private static S3Exception s3Exception(int status, String code) {
    return (S3Exception)
        S3Exception.builder()
            .statusCode(status)
            .awsErrorDetails(
                code == null ? null : AwsErrorDetails.builder().errorCode(code).build())
            .message("status " + status)
            .build();
  }
}
