package io.picomq.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS context that trusts the CA certificates of one PEM file (and nothing else): how a client
 * reaches a server whose certificate a private CA signed. Host names are still checked against the
 * server's certificate.
 */
final class TrustedCertificates {
  private TrustedCertificates() {}

  /**
   * @throws IllegalArgumentException in one line naming {@code pemFile}, when it cannot be read or
   *     holds no certificate
   */
  static SSLContext context(Path pemFile) {
    Collection<? extends Certificate> certificates;
    try (InputStream in = Files.newInputStream(pemFile)) {
      certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "CA certificate " + pemFile + ": cannot read a PEM certificate from it (" + e + ")", e);
    }
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException(
          "CA certificate " + pemFile + ": no PEM certificate in it (-----BEGIN CERTIFICATE-----)");
    }
    try {
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      int index = 0;
      for (Certificate certificate : certificates) {
        trusted.setCertificateEntry("ca-" + index++, certificate);
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot make a TLS context trusting " + pemFile, e);
    }
  }
}
