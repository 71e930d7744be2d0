package io.picomq.frontend.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OutputEncryptor;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * Certificates made at test time, as an operator would make them with openssl: a CA, and server
 * certificates it signs for {@code 127.0.0.1} and {@code localhost}, written as PEM files. EC P-256
 * keys: quick to generate, accepted by every TLS client.
 */
public final class TestCertificates {
  private static final AtomicLong SERIAL = new AtomicLong(Instant.now().getEpochSecond() << 16);

  private TestCertificates() {}

  /** A new self-signed CA named {@code name}. */
  public static Authority authority(String name) {
    KeyPair keys = newKeys();
    X500Name subject = new X500Name("CN=" + name);
    X509v3CertificateBuilder builder = builder(subject, subject, keys);
    try {
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      return new Authority(sign(builder, keys), keys);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A CA and the certificates it signs. */
  public record Authority(X509Certificate certificate, KeyPair keys) {

    /** A server certificate for {@code 127.0.0.1} and {@code localhost}, named {@code name}. */
    public Issued issue(String name) {
      KeyPair serverKeys = newKeys();
      X509v3CertificateBuilder builder =
          builder(
              new X500Name(certificate.getSubjectX500Principal().getName()),
              new X500Name("CN=" + name),
              serverKeys);
      try {
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(
                new GeneralName[] {
                  new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                  new GeneralName(GeneralName.dNSName, "localhost")
                }));
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        return new Issued(sign(builder, keys), serverKeys);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** A client TLS context that trusts this CA only. */
    public SSLContext clientContext() {
      try {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", certificate);
        TrustManagerFactory trust =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalStateException(e);
      }
    }

    /** Writes the CA certificate as PEM (what a client is told to trust). */
    public Path writeCertificate(Path file) {
      return write(file, pem(certificate));
    }
  }

  /** A server certificate and its key. */
  public record Issued(X509Certificate certificate, KeyPair keys) {

    /** The certificate's subject, e.g. {@code CN=server-a}. */
    public String subject() {
      return certificate.getSubjectX500Principal().getName();
    }

    /** Writes the certificate as PEM. */
    public Path writeCertificate(Path file) {
      return write(file, pem(certificate));
    }

    /** Writes the private key as unencrypted PKCS#8 PEM ({@code BEGIN PRIVATE KEY}). */
    public Path writeKey(Path file) {
      try {
        return write(file, pem(new JcaPKCS8Generator(keys.getPrivate(), null).generate()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * Writes the private key as encrypted PKCS#8 PEM ({@code BEGIN ENCRYPTED PRIVATE KEY}, PBES2
     * with AES-256, as {@code openssl pkcs8 -topk8} writes it).
     */
    public Path writeEncryptedKey(Path file, String password) {
      try {
        OutputEncryptor encryptor =
            new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.AES_256_CBC)
                .setPassword(password.toCharArray())
                .setRandom(new SecureRandom())
                .setProvider(new BouncyCastleProvider())
                .build();
        return write(file, pem(new JcaPKCS8Generator(keys.getPrivate(), encryptor).generate()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (org.bouncycastle.operator.OperatorCreationException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static X509v3CertificateBuilder builder(
      X500Name issuer, X500Name subject, KeyPair subjectKeys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofHours(1))),
        Date.from(now.plus(Duration.ofDays(2))),
        subject,
        subjectKeys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer) {
    try {
      ContentSigner contentSigner =
          new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate());
      return new JcaX509CertificateConverter().getCertificate(builder.build(contentSigner));
    } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair newKeys() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(256);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(Object object) {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      if (object instanceof PemObject pemObject) {
        writer.writeObject(pemObject);
      } else {
        writer.writeObject(object);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return text.toString();
  }

  private static Path write(Path file, String text) {
    try {
      Files.writeString(file, text);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
