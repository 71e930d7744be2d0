package io.picomq.node;

import io.picomq.frontend.tls.KeyPassword;
import io.picomq.frontend.tls.TlsFiles;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The PEM files both listeners serve TLS with ({@code pico serve --tls-cert --tls-key}); read at
 * start and again on {@link Node#reloadTls} (SIGHUP).
 *
 * @param certificateChain PEM certificates, the server's own first, then the intermediates
 * @param privateKey its PEM private key, PKCS#8, optionally encrypted
 * @param keyPassword the encrypted key's password as a value ({@code PICO_TLS_KEY_PASSWORD})
 * @param keyPasswordFile a file holding it ({@code --tls-key-password-file}), read at every load;
 *     at most one of the two
 */
public record TlsSettings(
    Path certificateChain,
    Path privateKey,
    Optional<Secret> keyPassword,
    Optional<Path> keyPasswordFile) {

  public TlsSettings {
    Objects.requireNonNull(certificateChain, "certificateChain");
    Objects.requireNonNull(privateKey, "privateKey");
    Objects.requireNonNull(keyPassword, "keyPassword");
    Objects.requireNonNull(keyPasswordFile, "keyPasswordFile");
    if (keyPassword.isPresent() && keyPasswordFile.isPresent()) {
      throw new IllegalArgumentException(
          "give the TLS key password once: PICO_TLS_KEY_PASSWORD or --tls-key-password-file,"
              + " not both");
    }
  }

  /** A plain (unencrypted) key. */
  public static TlsSettings of(Path certificateChain, Path privateKey) {
    return new TlsSettings(certificateChain, privateKey, Optional.empty(), Optional.empty());
  }

  TlsFiles files() {
    KeyPassword password =
        keyPassword
            .map(secret -> KeyPassword.of(secret.reveal()))
            .or(() -> keyPasswordFile.map(KeyPassword::inFile))
            .orElse(KeyPassword.NONE);
    return new TlsFiles(certificateChain, privateKey, password);
  }
}
