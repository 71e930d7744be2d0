package io.picomq.s3stream.objectstore.s3;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.picomq.s3stream.objectstore.IoPool;
import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.objectstore.ObjectKeys;
import io.picomq.s3stream.objectstore.ObjectRange;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import io.picomq.s3stream.objectstore.ObjectStoreException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An {@link ObjectStore} on an S3-compatible service (AWS S3, MinIO, S3Proxy, ...).
 *
 * <p>Calls go through the SDK's synchronous {@link S3Client} on an Apache connection pool and run
 * on an {@link IoPool} as large as that pool, so the interface stays asynchronous without the SDK's
 * Netty client (which would bring a second Netty). The SDK's own retries are off: {@link
 * io.picomq.s3stream.objectstore.RetryingObjectStore} retries once, with one budget, using the
 * classification in {@link S3Errors}.
 *
 * <p>Request checksums are sent only where S3 requires them, and as {@code Content-MD5} (see {@link
 * Md5Checksums}), because several S3-compatible stores reject the CRC32 checksums the SDK sends by
 * default.
 *
 * <p>Reads: a ranged GET carries a {@code Range} header. S3 answers a range that runs past the end
 * with the bytes that exist, so the store checks the object size in {@code Content-Range} and fails
 * such a read rather than return fewer bytes than asked. Empty ranges never reach S3 as a GET (S3
 * cannot express them): a HEAD checks that the object exists and the range fits.
 */
public final class S3ObjectStore implements ObjectStore {

  /** S3 accepts at most this many keys in one DeleteObjects request. */
  static final int MAX_KEYS_PER_DELETE = 1000;

  private final S3Client client;
  private final String bucket;
  private final IoPool io;
  private final ByteBufAllocator allocator;

  /**
   * @param client the SDK client; closed with this store
   * @param bucket an existing bucket
   * @param io runs the blocking SDK calls; closed with this store
   * @param allocator allocates the buffers {@link #get} returns
   */
  public S3ObjectStore(S3Client client, String bucket, IoPool io, ByteBufAllocator allocator) {
    this.client = Objects.requireNonNull(client, "client");
    this.bucket = Objects.requireNonNull(bucket, "bucket");
    this.io = Objects.requireNonNull(io, "io");
    this.allocator = Objects.requireNonNull(allocator, "allocator");
  }

  /**
   * Builds the SDK client and thread pool that {@code settings} describe.
   *
   * <p>The Apache 4 client is deprecated in favour of the Apache 5 one since SDK 2.3x; it is the
   * one this module was asked to use, and moving is a change of builder and artifact only.
   */
  @SuppressWarnings("deprecation")
  public static S3ObjectStore open(S3Settings settings, AwsCredentialsProvider credentials) {
    S3ClientBuilder builder =
        S3Client.builder()
            .region(Region.of(settings.region()))
            .credentialsProvider(credentials)
            .forcePathStyle(settings.pathStyle())
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .putAuthScheme(Md5Checksums.authScheme())
            .overrideConfiguration(
                o ->
                    o.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .addExecutionInterceptor(Md5Checksums.interceptor()))
            .httpClientBuilder(
                ApacheHttpClient.builder()
                    .maxConnections(settings.maxConnections())
                    .connectionTimeout(settings.connectTimeout())
                    .socketTimeout(settings.socketTimeout()));
    settings.endpoint().ifPresent(builder::endpointOverride);
    IoPool io =
        new IoPool(
            "picomq-s3-" + settings.bucket(),
            settings.maxConnections(),
            4096,
            Duration.ofSeconds(10));
    return new S3ObjectStore(builder.build(), settings.bucket(), io, ByteBufAllocator.DEFAULT);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The store takes its own reference to {@code data} for as long as the upload may still read
   * it, so a caller that releases its buffer when the future completes is safe even while an
   * attempt that a {@link io.picomq.s3stream.objectstore.RetryingObjectStore} gave up on is still
   * queued or sending.
   */
  @Override
  public CompletableFuture<Void> put(String key, ByteBuf data) {
    Objects.requireNonNull(key, "key");
    ByteBuf body = Objects.requireNonNull(data, "data").retainedSlice();
    CompletableFuture<Void> stored =
        call(
            "PUT",
            key,
            () -> {
              upload(key, body);
              return null;
            });
    // The caller gets a dependent future: it completes only after our reference is dropped, and
    // cancelling it cannot release the body under a write that is still running.
    return stored.whenComplete((ignored, error) -> body.release());
  }

  /**
   * {@inheritDoc}
   *
   * <p>The buffer comes from this store's allocator; the caller releases it.
   */
  @Override
  public CompletableFuture<ByteBuf> get(String key, long start, long end) {
    return call(
        "GET",
        key,
        () -> {
          ObjectRange.checkRequest(key, start, end);
          return download(key, start, end);
        });
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    String what = "LIST '" + prefix + "' in bucket " + bucket;
    return io.submit(what, () -> listAll(prefix), e -> classify(what, null, e));
  }

  @Override
  public CompletableFuture<Void> delete(List<String> keys) {
    // Distinct: a key twice in one DeleteObjects request is an error on some stores.
    List<String> copy = List.copyOf(new LinkedHashSet<>(keys));
    try {
      copy.forEach(ObjectKeys::check);
    } catch (ObjectStoreException e) {
      return CompletableFuture.failedFuture(e);
    }
    List<CompletableFuture<Void>> batches = new ArrayList<>();
    for (int from = 0; from < copy.size(); from += MAX_KEYS_PER_DELETE) {
      List<String> batch = copy.subList(from, Math.min(copy.size(), from + MAX_KEYS_PER_DELETE));
      String what = "DELETE " + batch.size() + " keys from '" + batch.get(0) + "' in " + bucket;
      batches.add(
          io.submit(
              what,
              () -> {
                deleteBatch(what, batch);
                return null;
              },
              e -> classify(what, null, e)));
    }
    return CompletableFuture.allOf(batches.toArray(CompletableFuture[]::new));
  }

  @Override
  public void close() {
    io.close();
    client.close();
  }

  @Override
  public String toString() {
    return "S3ObjectStore[" + bucket + "]";
  }

  private <T> CompletableFuture<T> call(String operation, String key, IoPool.BlockingCall<T> call) {
    Objects.requireNonNull(key, "key");
    try {
      ObjectKeys.check(key);
    } catch (ObjectStoreException e) {
      return CompletableFuture.failedFuture(e);
    }
    String what = operation + " '" + key + "' in bucket " + bucket;
    return io.submit(what, call, e -> classify(what, key, e));
  }

  private void upload(String key, ByteBuf body) {
    // The SDK may read the body twice (to sign it, then to send it) and again on a redirect, so
    // each read gets a fresh view of the same bytes.
    RequestBody request =
        RequestBody.fromContentProvider(
            () -> new ByteBufInputStream(body.duplicate()),
            body.readableBytes(),
            "application/octet-stream");
    client.putObject(b -> b.bucket(bucket).key(key), request);
  }

  private ByteBuf download(String key, long start, long end) throws IOException {
    if (end == start) {
      return emptyRange(key, start, end);
    }
    GetObjectRequest.Builder request = GetObjectRequest.builder().bucket(bucket).key(key);
    if (start != 0 || end != -1) {
      request.range("bytes=" + start + "-" + (end == -1 ? "" : Long.toString(end - 1)));
    }
    ResponseInputStream<GetObjectResponse> in;
    try {
      in = client.getObject(request.build());
    } catch (S3Exception e) {
      if (e.statusCode() == 416 && end == -1) {
        // "bytes=N-" on an object of exactly N bytes (or an empty one): legal for us, not for S3.
        return emptyRange(key, start, end);
      }
      throw e;
    }
    try (in) {
      return readBody(key, start, end, in);
    } catch (IOException | RuntimeException e) {
      in.abort();
      throw e;
    }
  }

  private ByteBuf readBody(
      String key, long start, long end, ResponseInputStream<GetObjectResponse> in)
      throws IOException {
    GetObjectResponse response = in.response();
    String contentRange = response.contentRange();
    long sizeBytes;
    if (contentRange == null) {
      // No Range sent, or a store that ignores it: the body is the whole object.
      sizeBytes = response.contentLength();
      in.skipNBytes(start);
    } else {
      sizeBytes = parseTotal(key, contentRange);
    }
    ObjectRange range = ObjectRange.resolve(key, start, end, sizeBytes);
    if (range.lengthBytes() > Integer.MAX_VALUE) {
      throw new ObjectStoreException(
          Kind.INVALID_ARGUMENT,
          "range " + range + " of '" + key + "' is too large for one buffer");
    }
    int length = (int) range.lengthBytes();
    ByteBuf buf = allocator.heapBuffer(length, length);
    try {
      readFully(key, in, buf);
      return buf;
    } catch (IOException | RuntimeException e) {
      buf.release();
      throw e;
    }
  }

  private static void readFully(String key, InputStream in, ByteBuf buf) throws IOException {
    while (buf.isWritable()) {
      if (buf.writeBytes(in, buf.writableBytes()) < 0) {
        throw new IOException(
            "GET '"
                + key
                + "' ended after "
                + buf.writerIndex()
                + " of "
                + buf.capacity()
                + " bytes");
      }
    }
  }

  private ByteBuf emptyRange(String key, long start, long end) {
    long sizeBytes = client.headObject(b -> b.bucket(bucket).key(key)).contentLength();
    ObjectRange.resolve(key, start, end, sizeBytes);
    return allocator.heapBuffer(0, 0);
  }

  /** The object size from a {@code Content-Range} such as {@code "bytes 0-9/10"}. */
  private static long parseTotal(String key, String contentRange) throws IOException {
    int slash = contentRange.lastIndexOf('/');
    try {
      return Long.parseLong(contentRange.substring(slash + 1).trim());
    } catch (NumberFormatException e) {
      throw new IOException(
          "GET '" + key + "' got an unreadable Content-Range '" + contentRange + "'", e);
    }
  }

  private List<ObjectInfo> listAll(String prefix) {
    ListObjectsV2Request request =
        ListObjectsV2Request.builder()
            .bucket(bucket)
            .prefix(prefix)
            .encodingType(EncodingType.URL)
            .build();
    List<ObjectInfo> found = new ArrayList<>();
    for (ListObjectsV2Response page : client.listObjectsV2Paginator(request)) {
      for (S3Object object : page.contents()) {
        found.add(new ObjectInfo(object.key(), object.size()));
      }
    }
    // S3 lists in UTF-8 byte order already; sorting guards against stores that do not.
    found.sort((a, b) -> ObjectKeys.ORDER.compare(a.key(), b.key()));
    return List.copyOf(found);
  }

  private void deleteBatch(String what, List<String> keys) {
    List<ObjectIdentifier> ids = new ArrayList<>(keys.size());
    for (String key : keys) {
      ids.add(ObjectIdentifier.builder().key(key).build());
    }
    Delete delete = Delete.builder().objects(ids).quiet(true).build();
    DeleteObjectsResponse response = client.deleteObjects(b -> b.bucket(bucket).delete(delete));
    for (S3Error error : response.errors()) {
      if (!"NoSuchKey".equals(error.code())) {
        throw S3Errors.classifyKeyError(
            what + " (" + response.errors().size() + " keys refused)",
            error.key(),
            error.code(),
            error.message());
      }
    }
  }

  private ObjectStoreException classify(String what, String key, Throwable e) {
    return S3Errors.classify(what, key, e, io.isClosed());
  }
}
