package io.picomq.s3stream.objectstore.s3;

import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.RetryPolicy;
import io.picomq.s3stream.objectstore.uri.ObjectStorageUri;
import io.picomq.s3stream.objectstore.uri.ObjectStores;
import java.net.URI;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * A real S3 server for tests: S3Proxy in this JVM on a free loopback port, keeping objects in
 * memory (jclouds {@code transient}) and checking AWS SigV2/SigV4 signatures.
 *
 * <p>Starting one takes about a second, so start it once per test class ({@code @BeforeAll}) and
 * give each test its own key prefix or {@link #createBucket bucket}. Modules that reuse this class
 * through the test-jar need {@code org.gaul:s3proxy} as a test dependency of their own.
 */
public final class S3ProxyServer implements AutoCloseable {

  /** The access key the server accepts. */
  public static final String ACCESS_KEY = "picomq-access";

  /** The secret key the server accepts. */
  public static final String SECRET_KEY = "picomq-secret";

  /** The bucket every server starts with. */
  public static final String DEFAULT_BUCKET = "picomq-test";

  private final S3Proxy proxy;
  private final BlobStoreContext context;
  private final URI endpoint;

  private S3ProxyServer(S3Proxy proxy, BlobStoreContext context, URI endpoint) {
    this.proxy = proxy;
    this.context = context;
    this.endpoint = endpoint;
  }

  /** Starts a server with an empty {@link #DEFAULT_BUCKET}. */
  public static S3ProxyServer start() throws Exception {
    Properties overrides = new Properties();
    BlobStoreContext context =
        ContextBuilder.newBuilder("transient")
            .credentials("unused", "unused")
            .overrides(overrides)
            .build(BlobStoreContext.class);
    S3Proxy proxy;
    try {
      proxy =
          S3Proxy.builder()
              .blobStore(context.getBlobStore())
              .endpoint(URI.create("http://127.0.0.1:0"))
              .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
              .build();
      proxy.start();
      // start() returns once Jetty is up; the wait covers versions that start asynchronously.
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!"STARTED".equals(proxy.getState())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
        }
        // The poll interval of this deadline loop. Not Awaitility: the JMH benchmarks
        // (s3stream-jmh)
        // start this class outside the tests, without test-scoped libraries on the class path.
        Thread.sleep(1);
      }
    } catch (Exception e) {
      context.close();
      throw e;
    }
    S3ProxyServer server =
        new S3ProxyServer(proxy, context, URI.create("http://127.0.0.1:" + proxy.getPort()));
    server.createBucket(DEFAULT_BUCKET);
    return server;
  }

  /** The server's base URL, e.g. {@code http://127.0.0.1:41234}. */
  public URI endpoint() {
    return endpoint;
  }

  /** The bucket the server started with. */
  public String bucket() {
    return DEFAULT_BUCKET;
  }

  /** Creates another empty bucket, for a test that wants one to itself. */
  public void createBucket(String name) {
    context.getBlobStore().createContainerInLocation(null, name);
  }

  /** A storage URI for {@link #bucket()}, bucket id 0. */
  public ObjectStorageUri storageUri() {
    return storageUri(DEFAULT_BUCKET, (short) 0);
  }

  /** A storage URI for {@code bucket} on this server (path-style, region us-east-1). */
  public ObjectStorageUri storageUri(String bucket, short bucketId) {
    return ObjectStorageUri.parse(
        bucketId
            + "@s3://"
            + bucket
            + "?region=us-east-1&endpoint="
            + endpoint
            + "&pathStyle=true");
  }

  /** Credentials the server accepts. */
  public AwsCredentialsProvider credentials() {
    return StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY));
  }

  /** Options for {@link ObjectStores#open} with this server's credentials. */
  public ObjectStores.Options options() {
    return ObjectStores.Options.defaults().withCredentials(credentials());
  }

  /** Opens {@link #bucket()} as the production code would: through the URI, with retries. */
  public ObjectStore openStore() {
    return ObjectStores.open(storageUri(), options());
  }

  /** Opens {@link #bucket()} with the given retry policy. */
  public ObjectStore openStore(RetryPolicy retryPolicy) {
    return ObjectStores.open(storageUri(), options().withRetryPolicy(retryPolicy));
  }

  @Override
  public void close() {
    try {
      proxy.stop();
    } catch (Exception e) {
      throw new IllegalStateException("S3Proxy did not stop cleanly", e);
    } finally {
      context.close();
    }
  }
}
