package io.picomq.frontend.tls;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a listener's TLS identity lives: PEM files an operator may replace and ask to be read again
 * (SIGHUP).
 *
 * @param certificateChain PEM certificates, the server's own first, then the intermediates
 * @param privateKey the PEM private key of the first certificate, PKCS#8 ({@code BEGIN PRIVATE
 *     KEY}) or encrypted PKCS#8 ({@code BEGIN ENCRYPTED PRIVATE KEY})
 * @param password the encrypted key's passphrase, {@link KeyPassword#NONE} for a plain key
 */
public record TlsFiles(Path certificateChain, Path privateKey, KeyPassword password) {
  public TlsFiles {
    Objects.requireNonNull(certificateChain, "certificateChain");
    Objects.requireNonNull(privateKey, "privateKey");
    Objects.requireNonNull(password, "password");
  }
}
