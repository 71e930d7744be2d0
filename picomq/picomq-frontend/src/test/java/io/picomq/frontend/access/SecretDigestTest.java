package io.picomq.frontend.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A wrong secret is compared in constant time. Shown structurally, not by timing: the comparison
 * reads every byte of both digests, exactly once each, whether they differ at the first byte, the
 * last, or not at all (a short-circuiting comparison would stop after one read). A timing test of a
 * 32-byte comparison would measure noise; counting reads is exact and never flaky.
 */
class SecretDigestTest {

  @Test
  void theComparisonReadsEveryByteWhereverTheDigestsDiffer() {
    byte[] stored = SecretDigest.of(new byte[] {1, 2, 3});
    byte[] firstDiffers = stored.clone();
    firstDiffers[0] ^= 1;
    byte[] lastDiffers = stored.clone();
    lastDiffers[stored.length - 1] ^= 1;

    assertThat(reads(stored, firstDiffers)).isEqualTo(new Reads(32, 32, false));
    assertThat(reads(stored, lastDiffers)).isEqualTo(new Reads(32, 32, false));
    assertThat(reads(stored, stored.clone())).isEqualTo(new Reads(32, 32, true));
  }

  @Test
  void equalIsTheDigestEqualityTheCheckUses() {
    byte[] secret = "a secret of some length".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] stored = SecretDigest.of(secret);
    byte[] other = secret.clone();
    other[other.length - 1] ^= 1;

    assertThat(SecretDigest.equal(stored, SecretDigest.of(secret))).isTrue();
    assertThat(SecretDigest.equal(stored, SecretDigest.of(other))).isFalse();
    assertThat(SecretDigest.equal(stored, Arrays.copyOf(stored, 31))).isFalse();
  }

  @Test
  void secretsDifferingInTheirLastByteGiveDigestsDifferingFromTheFirst() {
    // What an attacker steers is the secret, and the digest spreads any change over all of it, so
    // guessing a secret byte by byte learns nothing from where a comparison would have stopped.
    byte[] secret = new byte[32];
    byte[] other = secret.clone();
    other[31] = 1;
    byte[] a = SecretDigest.of(secret);
    byte[] b = SecretDigest.of(other);
    int differing = 0;
    for (int i = 0; i < a.length; i++) {
      differing += a[i] != b[i] ? 1 : 0;
    }
    assertThat(a[0]).isNotEqualTo(b[0]);
    assertThat(differing).isGreaterThan(16);
  }

  private record Reads(int ofA, int ofB, boolean equal) {}

  private static Reads reads(byte[] a, byte[] b) {
    AtomicInteger readsOfA = new AtomicInteger();
    AtomicInteger readsOfB = new AtomicInteger();
    IntUnaryOperator countedA =
        i -> {
          readsOfA.incrementAndGet();
          return a[i];
        };
    IntUnaryOperator countedB =
        i -> {
          readsOfB.incrementAndGet();
          return b[i];
        };
    boolean equal = SecretDigest.equalInConstantTime(a.length, countedA, countedB);
    return new Reads(readsOfA.get(), readsOfB.get(), equal);
  }
}
