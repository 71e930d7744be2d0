package io.picomq.s3stream.objectstore.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.scheme.AwsV4AuthScheme;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.scheme.AuthScheme;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignRequest;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.IdentityProviders;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;

/**
 * Makes the SDK protect DeleteObjects with {@code Content-MD5}, as every S3-compatible store
 * expects, instead of a CRC32 header that many of them refuse.
 *
 * <p>S3 requires an integrity header on DeleteObjects. Since 2.30 the SDK always sends {@code
 * x-amz-checksum-crc32}, even with checksums set to "when required": AWS accepts it, but S3Proxy
 * answers 501 NotImplemented and older MinIO 400 MissingContentMD5 (aws-sdk-java-v2 issue 5805,
 * gaul/s3proxy issue 962). The SDK adds that header while signing, so two pieces are needed: an
 * interceptor that adds {@code Content-MD5} before signing, and a SigV4 signer that signs without
 * the flexible checksum. AWS accepts {@code Content-MD5} on DeleteObjects as well.
 *
 * <p>Only requests for which the SDK chose a flexible checksum are changed; with checksums "when
 * required" that is DeleteObjects alone among the calls this backend makes.
 */
final class Md5Checksums {

  private static final String ALGORITHM_HEADER = "x-amz-sdk-checksum-algorithm";

  private Md5Checksums() {}

  /** The interceptor that adds {@code Content-MD5}; install it with {@link #authScheme()}. */
  static ExecutionInterceptor interceptor() {
    return new ContentMd5ForDeleteObjects();
  }

  /** The SigV4 scheme whose signer leaves the flexible checksum out. */
  static AuthScheme<AwsCredentialsIdentity> authScheme() {
    return new SigV4WithoutFlexibleChecksum();
  }

  /** Adds {@code Content-MD5} to DeleteObjects, before the request is signed. */
  private static final class ContentMd5ForDeleteObjects implements ExecutionInterceptor {
    @Override
    public SdkHttpRequest modifyHttpRequest(
        Context.ModifyHttpRequest context, ExecutionAttributes executionAttributes) {
      if (!(context.request() instanceof DeleteObjectsRequest) || context.requestBody().isEmpty()) {
        return context.httpRequest();
      }
      try (InputStream body = context.requestBody().get().contentStreamProvider().newStream()) {
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        byte[] chunk = new byte[8192];
        for (int n = body.read(chunk); n >= 0; n = body.read(chunk)) {
          md5.update(chunk, 0, n);
        }
        String digest = Base64.getEncoder().encodeToString(md5.digest());
        return context.httpRequest().toBuilder().putHeader("Content-MD5", digest).build();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the DeleteObjects body to hash it", e);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("every Java runtime has MD5", e);
      }
    }
  }

  /** SigV4, minus the flexible checksum the SDK asks the signer to compute and add. */
  private static final class SigV4WithoutFlexibleChecksum
      implements AuthScheme<AwsCredentialsIdentity> {
    private final AwsV4AuthScheme standard = AwsV4AuthScheme.create();
    private final HttpSigner<AwsCredentialsIdentity> signer = new Signer(AwsV4HttpSigner.create());

    @Override
    public String schemeId() {
      return AwsV4AuthScheme.SCHEME_ID;
    }

    @Override
    public IdentityProvider<AwsCredentialsIdentity> identityProvider(IdentityProviders providers) {
      return standard.identityProvider(providers);
    }

    @Override
    public HttpSigner<AwsCredentialsIdentity> signer() {
      return signer;
    }
  }

  private record Signer(HttpSigner<AwsCredentialsIdentity> delegate)
      implements HttpSigner<AwsCredentialsIdentity> {
    @Override
    public SignedRequest sign(SignRequest<? extends AwsCredentialsIdentity> request) {
      if (request.property(AwsV4FamilyHttpSigner.CHECKSUM_ALGORITHM) == null) {
        return delegate.sign(request);
      }
      SignRequest<? extends AwsCredentialsIdentity> withoutChecksum =
          request.copy(
              b ->
                  b.putProperty(AwsV4FamilyHttpSigner.CHECKSUM_ALGORITHM, null)
                      .request(
                          request.request().toBuilder().removeHeader(ALGORITHM_HEADER).build()));
      return delegate.sign(withoutChecksum);
    }

    @Override
    public CompletableFuture<AsyncSignedRequest> signAsync(
        AsyncSignRequest<? extends AwsCredentialsIdentity> request) {
      return delegate.signAsync(request); // this backend uses the synchronous client only
    }
  }
}
