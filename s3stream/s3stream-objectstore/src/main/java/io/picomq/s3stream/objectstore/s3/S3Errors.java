package io.picomq.s3stream.objectstore.s3;

import io.picomq.s3stream.objectstore.ObjectNotFoundException;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import io.picomq.s3stream.objectstore.ObjectStoreException.Kind;
import java.io.IOException;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Sorts what the S3 SDK throws into {@link Kind}s. Only this backend knows which S3 answers are
 * worth repeating; the retry decorator just reads {@link ObjectStoreException#isRetryable()}.
 *
 * <p>Transient: 500 InternalError, 503 SlowDown or ServiceUnavailable, 502, 504, 429, the
 * throttling codes some stores send with a 400, 408 RequestTimeout, every 5xx but 501
 * NotImplemented (a store lacking a feature will keep lacking it), and client-side failures that
 * come from the network (connect or read timeouts, resets). Everything else in the 4xx range is
 * permanent: 404 is {@link Kind#NOT_FOUND}, 403 {@link Kind#ACCESS_DENIED}, 416 {@link
 * Kind#INVALID_ARGUMENT}.
 */
final class S3Errors {

  private static final Set<String> THROTTLING_CODES =
      Set.of(
          "SlowDown",
          "Throttling",
          "ThrottlingException",
          "ThrottledException",
          "RequestThrottled",
          "RequestLimitExceeded",
          "TooManyRequests",
          "TooManyRequestsException");

  private static final Set<String> SERVER_CODES =
      Set.of("InternalError", "ServiceUnavailable", "RequestTimeout");

  private static final Set<String> ACCESS_CODES =
      Set.of(
          "AccessDenied",
          "InvalidAccessKeyId",
          "SignatureDoesNotMatch",
          "InvalidToken",
          "ExpiredToken");

  private S3Errors() {}

  /**
   * @param what the operation, e.g. {@code "GET 'a/b' in bucket x"}
   * @param key the object key when the operation names one object (a 404 then means that object is
   *     absent), else null
   * @param closing whether the store is closing, which explains aborted and interrupted calls
   */
  static ObjectStoreException classify(String what, String key, Throwable t, boolean closing) {
    if (t instanceof ObjectStoreException known) {
      return known;
    }
    if (t instanceof AwsServiceException service) {
      return classifyService(what, key, service);
    }
    if (closing && (t instanceof AbortedException || t instanceof InterruptedException)) {
      return new ObjectStoreException(Kind.CLOSED, what + " stopped: the store closed", t);
    }
    if (t instanceof SdkClientException client) {
      return classifyClient(what, client);
    }
    if (t instanceof IOException) {
      return new ObjectStoreException(Kind.TRANSIENT, what + " failed: " + t, t);
    }
    return new ObjectStoreException(Kind.PERMANENT, what + " failed: " + t, t);
  }

  /**
   * Classifies one key's failure inside a DeleteObjects answer, which carries an error code but no
   * HTTP status of its own.
   */
  static ObjectStoreException classifyKeyError(
      String what, String key, String code, String message) {
    String detail = what + ": '" + key + "' failed with " + code + " (" + message + ")";
    if (code != null && (SERVER_CODES.contains(code) || THROTTLING_CODES.contains(code))) {
      return new ObjectStoreException(Kind.TRANSIENT, detail);
    }
    if (code != null && ACCESS_CODES.contains(code)) {
      return new ObjectStoreException(Kind.ACCESS_DENIED, detail);
    }
    return new ObjectStoreException(Kind.PERMANENT, detail);
  }

  private static ObjectStoreException classifyService(
      String what, String key, AwsServiceException e) {
    int status = e.statusCode();
    String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    String detail = what + " failed: HTTP " + status + (code == null ? "" : " " + code);
    if (key != null
        && (e instanceof NoSuchKeyException
            || "NoSuchKey".equals(code)
            || (status == 404 && code == null))) {
      return new ObjectNotFoundException(key, e);
    }
    if ((status >= 500 && status != 501)
        || status == 429
        || status == 408
        || "RequestTimeout".equals(code)
        || (code != null && THROTTLING_CODES.contains(code))
        || e.isThrottlingException()) {
      return new ObjectStoreException(Kind.TRANSIENT, detail, e);
    }
    if (status == 403 || (code != null && ACCESS_CODES.contains(code))) {
      return new ObjectStoreException(Kind.ACCESS_DENIED, detail, e);
    }
    if (status == 416 || "InvalidRange".equals(code)) {
      return new ObjectStoreException(Kind.INVALID_ARGUMENT, detail, e);
    }
    return new ObjectStoreException(Kind.PERMANENT, detail + ": " + e.getMessage(), e);
  }

  private static ObjectStoreException classifyClient(String what, SdkClientException e) {
    String message = String.valueOf(e.getMessage());
    // A missing credential chain collects connection failures from the instance-metadata probe on
    // its way, which would look like a network problem; it is a configuration one.
    if (message.startsWith("Unable to load credentials")) {
      return new ObjectStoreException(Kind.ACCESS_DENIED, what + " failed: " + message, e);
    }
    if (e instanceof ApiCallTimeoutException
        || e instanceof ApiCallAttemptTimeoutException
        || e.retryable()
        || hasIoCause(e)) {
      return new ObjectStoreException(Kind.TRANSIENT, what + " failed: " + message, e);
    }
    return new ObjectStoreException(Kind.PERMANENT, what + " failed: " + message, e);
  }

  private static boolean hasIoCause(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof IOException) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return false;
  }
}
