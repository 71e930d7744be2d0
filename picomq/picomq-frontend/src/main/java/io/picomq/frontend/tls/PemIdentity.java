package io.picomq.frontend.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * A server's certificate chain and private key, read from {@link TlsFiles} and checked: every
 * failure is an {@link IllegalArgumentException} whose one-line message names the file and what is
 * wrong with it, so {@code pico serve} can print it as it is.
 *
 * <p>Read here rather than by Netty's file-taking builder because Netty neither checks that the key
 * belongs to the certificate (a mismatch would surface as handshake failures at the first client)
 * nor says which file was unreadable.
 *
 * @param key the private key
 * @param chain the certificates, the key's own first
 */
record PemIdentity(PrivateKey key, List<X509Certificate> chain) {

  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);

  private static final Pattern WHITESPACE = Pattern.compile("\\s+");

  /** Key types tried in turn: a PKCS#8 key names its algorithm only by OID. */
  private static final List<String> KEY_ALGORITHMS =
      List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS");

  PemIdentity {
    chain = List.copyOf(chain);
  }

  /** Reads and checks {@code files}. */
  static PemIdentity load(TlsFiles files) {
    List<X509Certificate> chain = certificates(files.certificateChain());
    PrivateKey key = privateKey(files.privateKey(), files.password());
    requireMatch(key, chain.get(0), files);
    return new PemIdentity(key, chain);
  }

  /** The server's own certificate, for log lines: subject and end of validity. */
  String describe() {
    X509Certificate own = chain.get(0);
    return own.getSubjectX500Principal().getName()
        + ", valid until "
        + own.getNotAfter().toInstant();
  }

  private static List<X509Certificate> certificates(Path file) {
    List<byte[]> blocks = blocks(file, "TLS certificate", "CERTIFICATE");
    if (blocks.isEmpty()) {
      throw new IllegalArgumentException(
          "TLS certificate " + file + ": no PEM certificate in it (-----BEGIN CERTIFICATE-----)");
    }
    List<X509Certificate> chain = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      for (byte[] der : blocks) {
        chain.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
      }
    } catch (CertificateException e) {
      throw new IllegalArgumentException(
          "TLS certificate " + file + ": not a valid X.509 certificate (" + e.getMessage() + ")",
          e);
    }
    return chain;
  }

  private static PrivateKey privateKey(Path file, KeyPassword password) {
    String text = read(file, "TLS key");
    // The first key block: a file may hold the certificates too.
    Matcher block = BLOCK.matcher(text);
    boolean found = false;
    while (!found && block.find()) {
      found = block.group(1).endsWith("PRIVATE KEY");
    }
    if (!found) {
      throw new IllegalArgumentException(
          "TLS key " + file + ": no PEM private key in it (-----BEGIN PRIVATE KEY-----)");
    }
    String label = block.group(1);
    byte[] der = decode(file, "TLS key", block.group(2));
    return switch (label) {
      case "PRIVATE KEY" -> {
        if (password.read().isPresent()) {
          throw new IllegalArgumentException(
              "TLS key " + file + ": a password is given but the key is not encrypted");
        }
        yield parse(file, new PKCS8EncodedKeySpec(der));
      }
      case "ENCRYPTED PRIVATE KEY" -> {
        char[] secret =
            password
                .read()
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "TLS key "
                                + file
                                + ": the key is encrypted; give its password in"
                                + " --tls-key-password-file or PICO_TLS_KEY_PASSWORD"));
        yield parse(file, decrypt(file, der, secret));
      }
      case "RSA PRIVATE KEY", "EC PRIVATE KEY" ->
          throw new IllegalArgumentException(
              "TLS key "
                  + file
                  + ": "
                  + label
                  + " is not PKCS#8; convert it with: openssl pkcs8 -topk8 -nocrypt -in "
                  + file
                  + " -out key.pem");
      default ->
          throw new IllegalArgumentException(
              "TLS key " + file + ": " + label + " is not supported; convert it to PKCS#8");
    };
  }

  private static PKCS8EncodedKeySpec decrypt(Path file, byte[] der, char[] password) {
    try {
      EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
      // For PBES2 (what openssl writes) the algorithm is in the parameters, e.g.
      // PBEWithHmacSHA256AndAES_256; getAlgName() alone says only "PBES2".
      String algorithm =
          info.getAlgParameters() != null ? info.getAlgParameters().toString() : info.getAlgName();
      SecretKeyFactory factory = SecretKeyFactory.getInstance(algorithm);
      Cipher cipher = Cipher.getInstance(algorithm);
      cipher.init(
          Cipher.DECRYPT_MODE,
          factory.generateSecret(new PBEKeySpec(password)),
          info.getAlgParameters());
      return info.getKeySpec(cipher);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "TLS key " + file + ": cannot decrypt it, wrong password? (" + e + ")", e);
    } finally {
      Arrays.fill(password, '\0');
    }
  }

  private static PrivateKey parse(Path file, PKCS8EncodedKeySpec spec) {
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException notThisType) {
        // try the next type
      }
    }
    throw new IllegalArgumentException(
        "TLS key " + file + ": not a private key of a known type (" + KEY_ALGORITHMS + ")");
  }

  /**
   * Signs a random challenge with the key and verifies it with the certificate's public key: the
   * one check that works for every key type.
   */
  private static void requireMatch(PrivateKey key, X509Certificate certificate, TlsFiles files) {
    Optional<String> algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> Optional.of("SHA256withRSA");
          case "EC" -> Optional.of("SHA256withECDSA");
          case "Ed25519", "Ed448", "EdDSA" -> Optional.of(key.getAlgorithm());
          default -> Optional.empty(); // RSASSA-PSS needs parameters; the handshake will tell
        };
    if (algorithm.isEmpty()) {
      return;
    }
    boolean matches;
    try {
      byte[] challenge = new byte[32];
      new SecureRandom().nextBytes(challenge);
      Signature signer = Signature.getInstance(algorithm.get());
      signer.initSign(key);
      signer.update(challenge);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm.get());
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(challenge);
      matches = verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      matches = false;
    }
    if (!matches) {
      throw new IllegalArgumentException(
          "TLS key "
              + files.privateKey()
              + " does not belong to the certificate "
              + files.certificateChain()
              + " ("
              + certificate.getSubjectX500Principal().getName()
              + ")");
    }
  }

  private static List<byte[]> blocks(Path file, String what, String label) {
    Matcher block = BLOCK.matcher(read(file, what));
    List<byte[]> found = new ArrayList<>();
    while (block.find()) {
      if (block.group(1).equals(label)) {
        found.add(decode(file, what, block.group(2)));
      }
    }
    return found;
  }

  private static byte[] decode(Path file, String what, String base64) {
    try {
      // Strict, unlike the MIME decoder, which skips what is not base64 and decodes garbage to
      // nothing at all.
      return Base64.getDecoder().decode(WHITESPACE.matcher(base64).replaceAll(""));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + " " + file + ": bad base64 in its PEM block", e);
    }
  }

  private static String read(Path file, String what) {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(what + " " + file + ": cannot read it (" + e + ")", e);
    }
  }
}
