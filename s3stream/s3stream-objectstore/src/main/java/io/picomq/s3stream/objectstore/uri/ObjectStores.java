package io.picomq.s3stream.objectstore.uri;

import io.picomq.s3stream.objectstore.MemoryObjectStore;
import io.picomq.s3stream.objectstore.ObjectStore;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import io.picomq.s3stream.objectstore.ObjectStoreWatch;
import io.picomq.s3stream.objectstore.RetryPolicy;
import io.picomq.s3stream.objectstore.RetryingObjectStore;
import io.picomq.s3stream.objectstore.file.FileObjectStore;
import io.picomq.s3stream.objectstore.s3.S3ObjectStore;
import io.picomq.s3stream.objectstore.s3.S3Settings;
import io.picomq.s3stream.time.Scheduler;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;

/**
 * Opens the object store a {@link ObjectStorageUri} names, wrapped in a {@link
 * RetryingObjectStore}. Closing the returned store releases everything opened here.
 */
public final class ObjectStores {

  /**
   * What the URI does not say.
   *
   * @param credentials for {@code s3://}; empty means the SDK's default chain, which reads {@code
   *     AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY} and {@code AWS_SESSION_TOKEN} (then
   *     profiles and instance roles) when a request is first signed
   * @param retryPolicy how to retry transient failures
   * @param scheduler the clock and timer of the retries
   * @param fileIoThreads threads running {@code file://} calls
   */
  public record Options(
      Optional<AwsCredentialsProvider> credentials,
      RetryPolicy retryPolicy,
      Scheduler scheduler,
      int fileIoThreads) {

    public Options {
      Objects.requireNonNull(credentials, "credentials");
      Objects.requireNonNull(retryPolicy, "retryPolicy");
      Objects.requireNonNull(scheduler, "scheduler");
      if (fileIoThreads < 1) {
        throw new IllegalArgumentException("fileIoThreads must be >= 1: " + fileIoThreads);
      }
    }

    /** Default credentials chain, {@link RetryPolicy#defaults()}, the system clock. */
    public static Options defaults() {
      return new Options(Optional.empty(), RetryPolicy.defaults(), Scheduler.system(), 8);
    }

    public Options withCredentials(AwsCredentialsProvider provider) {
      return new Options(Optional.of(provider), retryPolicy, scheduler, fileIoThreads);
    }

    public Options withRetryPolicy(RetryPolicy policy) {
      return new Options(credentials, policy, scheduler, fileIoThreads);
    }

    public Options withScheduler(Scheduler newScheduler) {
      return new Options(credentials, retryPolicy, newScheduler, fileIoThreads);
    }
  }

  private ObjectStores() {}

  /** Opens the store {@code uri} names with {@link Options#defaults()}. */
  public static ObjectStore open(ObjectStorageUri uri) {
    return open(uri, Options.defaults());
  }

  /**
   * Opens the store {@code uri} names. A {@code file://} directory is created if missing; an {@code
   * s3://} bucket must exist already (nothing is sent to S3 until the first call). Each {@code
   * memory://} open gives a new, empty store.
   *
   * @throws ObjectStoreException if the directory cannot be created
   */
  public static ObjectStore open(ObjectStorageUri uri, Options options) {
    return open(uri, options, null);
  }

  /**
   * As {@link #open(ObjectStorageUri, Options)}, with every attempt (inside the retries) recorded
   * by {@code watch}, so it sees a failing store at the first failed attempt.
   */
  public static ObjectStore open(ObjectStorageUri uri, Options options, ObjectStoreWatch watch) {
    ObjectStore opened =
        switch (uri.scheme()) {
          case MEMORY -> new MemoryObjectStore();
          case FILE -> openFile(uri, options);
          case S3 -> openS3(uri, options);
        };
    ObjectStore backend = watch == null ? opened : watch.watch(opened);
    return new RetryingObjectStore(
        backend, options.retryPolicy(), options.scheduler(), new Random());
  }

  private static ObjectStore openFile(ObjectStorageUri uri, Options options) {
    try {
      return FileObjectStore.open(uri.path(), options.fileIoThreads());
    } catch (IOException e) {
      throw new ObjectStoreException(
          ObjectStoreException.Kind.PERMANENT,
          "cannot open the file store of " + uri + ": " + e,
          e);
    }
  }

  private static ObjectStore openS3(ObjectStorageUri uri, Options options) {
    S3Settings settings =
        S3Settings.of(uri.bucket(), uri.region(), uri.endpoint(), uri.pathStyle());
    AwsCredentialsProvider credentials =
        options.credentials().orElseGet(() -> DefaultCredentialsProvider.builder().build());
    return S3ObjectStore.open(settings, credentials);
  }
}
