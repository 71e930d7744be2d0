package io.picomq.client;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;

/**
 * A credential a PicoMQ node accepts: an opaque {@code BASE64URL(id).BASE64URL(secret)} string,
 * sent as {@code Authorization: Bearer <token>} on every request. The SDK does not look inside a
 * token (only the server knows whether it is valid); it checks only that the text can travel in a
 * header, so a token with a stray newline from a file fails here, naming no secret.
 *
 * <p>{@link #toString()} never shows the secret: a token logged by accident reveals nothing.
 *
 * @param value the token as the server issued it
 */
public record BearerToken(String value) {

  /** How many random bytes name a token: its id, which the server lists and revokes by. */
  static final int ID_BYTES = 9;

  /** How many random bytes the secret has; only its SHA-256 is stored by the server. */
  static final int SECRET_BYTES = 32;

  private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

  /**
   * @throws IllegalArgumentException if {@code value} is empty or has a character a header cannot
   *     carry (spaces, control characters, non-ASCII); the message does not repeat the value
   */
  public BearerToken {
    Objects.requireNonNull(value, "value");
    if (value.isEmpty()) {
      throw new IllegalArgumentException("a token must not be empty");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c <= ' ' || c > '~') {
        throw new IllegalArgumentException(
            "a token has only visible ASCII characters, and this one has "
                + (c == '\n' || c == '\r'
                    ? "a line break"
                    : String.format(java.util.Locale.ROOT, "character U+%04X", (int) c))
                + " at position "
                + i);
      }
    }
  }

  /**
   * A fresh random token in the server's format: 9 random bytes of id and 32 of secret, each
   * base64url without padding. What {@code pico token new} prints for {@code PICO_ROOT_TOKEN}.
   */
  public static BearerToken random(SecureRandom random) {
    byte[] id = new byte[ID_BYTES];
    byte[] secret = new byte[SECRET_BYTES];
    random.nextBytes(id);
    random.nextBytes(secret);
    return new BearerToken(BASE64URL.encodeToString(id) + "." + BASE64URL.encodeToString(secret));
  }

  /** The value of the {@code Authorization} header: {@code Bearer <token>}. */
  String authorization() {
    return "Bearer " + value;
  }

  /** Masked: the token's text never ends up in a log through this. */
  @Override
  public String toString() {
    return "BearerToken[***]";
  }
}
