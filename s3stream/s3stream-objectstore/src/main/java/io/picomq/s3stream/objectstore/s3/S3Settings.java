package io.picomq.s3stream.objectstore.s3;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where an {@link S3ObjectStore} connects and how hard it may push.
 *
 * @param bucket an existing bucket
 * @param region the signing region, e.g. {@code us-east-1}
 * @param endpoint the service's base URI for non-AWS stores (MinIO, S3Proxy); empty for AWS
 * @param pathStyle address the bucket as {@code endpoint/bucket} instead of {@code
 *     bucket.endpoint}; most self-hosted stores need it
 * @param maxConnections the size of the HTTP connection pool, which is also the number of threads
 *     running S3 calls
 * @param connectTimeout how long to wait for a TCP connection
 * @param socketTimeout how long a read or write on an open connection may stall
 */
public record S3Settings(
    String bucket,
    String region,
    Optional<URI> endpoint,
    boolean pathStyle,
    int maxConnections,
    Duration connectTimeout,
    Duration socketTimeout) {

  public static final int DEFAULT_MAX_CONNECTIONS = 32;
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(30);

  public S3Settings {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(socketTimeout, "socketTimeout");
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1: " + maxConnections);
    }
  }

  /** Settings with the default pool size and timeouts. */
  public static S3Settings of(
      String bucket, String region, Optional<URI> endpoint, boolean pathStyle) {
    return new S3Settings(
        bucket,
        region,
        endpoint,
        pathStyle,
        DEFAULT_MAX_CONNECTIONS,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_SOCKET_TIMEOUT);
  }
}
