package io.picomq.frontend.access;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.function.IntUnaryOperator;

/**
 * SHA-256 digests of token secrets and their comparison in constant time.
 *
 * <p>Why this cannot leak a secret through timing: the stored value is a digest, and a presented
 * secret is digested before the comparison, so where two digests first differ says nothing an
 * attacker can steer byte by byte; and the comparison reads every byte of both digests whatever
 * they hold ({@link #equalInConstantTime}), as {@link MessageDigest#isEqual} does. We keep our own
 * ten lines rather than calling {@code isEqual} because a test can count what they read
 * (SecretDigestTest), which it cannot do for the JDK's; a timing test of a 32-byte comparison would
 * be noise, not evidence.
 */
public final class SecretDigest {

  public static final int BYTES = 32;

  private SecretDigest() {}

  public static byte[] of(byte[] secret) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(secret);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Whether the two digests are equal; reads every byte of both when their lengths agree. */
  public static boolean equal(byte[] stored, byte[] presented) {
    if (stored.length != presented.length) {
      return false;
    }
    return equalInConstantTime(stored.length, i -> stored[i], i -> presented[i]);
  }

  /**
   * Compares {@code length} bytes read through {@code a} and {@code b}: every byte of both is read
   * exactly once, in order, and no branch depends on them until the end.
   */
  static boolean equalInConstantTime(int length, IntUnaryOperator a, IntUnaryOperator b) {
    int difference = 0;
    for (int i = 0; i < length; i++) {
      difference |= a.applyAsInt(i) ^ b.applyAsInt(i);
    }
    return difference == 0;
  }
}
