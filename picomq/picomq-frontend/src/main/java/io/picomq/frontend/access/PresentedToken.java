package io.picomq.frontend.access;

import java.util.Base64;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * An opaque bearer token, {@code BASE64URL(id).BASE64URL(secret)} without padding: a 9-byte id (12
 * characters) that names the token in listings and revocations, and a 32-byte secret (43
 * characters) of which only the SHA-256 is ever stored ({@link SecretDigest}).
 *
 * <p>{@link #toString} shows the id only, so a token can be logged.
 */
public final class PresentedToken {

  public static final int ID_BYTES = 9;
  public static final int SECRET_BYTES = 32;
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  private final String id;
  private final byte[] secret;

  private PresentedToken(String id, byte[] secret) {
    this.id = id;
    this.secret = secret;
  }

  /** A new token from {@code random} (give it a {@link java.security.SecureRandom}). */
  public static PresentedToken generate(RandomGenerator random) {
    byte[] id = new byte[ID_BYTES];
    byte[] secret = new byte[SECRET_BYTES];
    random.nextBytes(id);
    random.nextBytes(secret);
    return new PresentedToken(ENCODER.encodeToString(id), secret);
  }

  /**
   * The token {@code text} spells, or empty when it is not exactly {@code <12 chars>.<43 chars>} of
   * the URL-safe alphabet in canonical form (so one token has one spelling).
   */
  public static Optional<PresentedToken> parse(String text) {
    int dot = text.indexOf('.');
    if (dot < 0 || text.indexOf('.', dot + 1) >= 0) {
      return Optional.empty();
    }
    String id = text.substring(0, dot);
    Optional<byte[]> idBytes = decode(id, ID_BYTES);
    Optional<byte[]> secret = decode(text.substring(dot + 1), SECRET_BYTES);
    if (idBytes.isEmpty() || secret.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new PresentedToken(id, secret.get()));
  }

  /** Whether {@code id} is a token id's spelling (12 URL-safe characters, canonical). */
  public static boolean isId(String id) {
    return decode(id, ID_BYTES).isPresent();
  }

  private static Optional<byte[]> decode(String text, int bytes) {
    int length = (bytes * 8 + 5) / 6;
    if (text.length() != length) {
      return Optional.empty();
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean alphabet =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      if (!alphabet) {
        return Optional.empty();
      }
    }
    byte[] decoded = DECODER.decode(text);
    // Unused low bits of the last character must be zero: one token, one spelling.
    if (decoded.length != bytes || !ENCODER.encodeToString(decoded).equals(text)) {
      return Optional.empty();
    }
    return Optional.of(decoded);
  }

  public String id() {
    return id;
  }

  /** The SHA-256 of the secret: what is stored. */
  public byte[] secretDigest() {
    return SecretDigest.of(secret);
  }

  /** The whole token, secret included: hand it to its holder once and nowhere else. */
  public String reveal() {
    return id + "." + ENCODER.encodeToString(secret);
  }

  @Override
  public String toString() {
    return "token " + id;
  }
}
