package io.picomq.frontend.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

/** The token format: BASE64URL(9-byte id).BASE64URL(32-byte secret), one spelling per token. */
class BearerTokenTest {

  @Test
  void aGeneratedTokenParsesBackAndShowsOnlyItsId() {
    BearerToken token = BearerToken.generate(new SecureRandom());
    String text = token.reveal();

    assertThat(text).matches("[A-Za-z0-9_-]{12}\\.[A-Za-z0-9_-]{43}");
    BearerToken parsed = BearerToken.parse(text).orElseThrow();
    assertThat(parsed.id()).isEqualTo(token.id());
    assertThat(parsed.secretDigest()).isEqualTo(token.secretDigest());
    assertThat(token.toString()).doesNotContain(text.substring(13));
  }

  @Test
  void anythingElseIsNoToken() {
    String good = BearerToken.generate(new SecureRandom()).reveal();
    assertThat(BearerToken.parse(good.replace('.', ','))).isEmpty();
    assertThat(BearerToken.parse(good + ".x")).isEmpty();
    assertThat(BearerToken.parse(good + "=")).isEmpty();
    assertThat(BearerToken.parse(good.substring(1))).isEmpty();
    assertThat(BearerToken.parse(good.substring(0, 20) + "+" + good.substring(21))).isEmpty();
    assertThat(BearerToken.parse("")).isEmpty();
    // The last character of the secret carries 2 unused bits: only zeros there is canonical.
    String secret = "A".repeat(42) + "B";
    assertThat(BearerToken.parse("AAAAAAAAAAAA." + secret)).isEmpty();
    assertThat(BearerToken.parse("AAAAAAAAAAAA." + "A".repeat(42) + "E")).isPresent();
  }
}
