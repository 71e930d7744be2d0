package io.picomq.frontend.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

/** The token format: BASE64URL(9-byte id).BASE64URL(32-byte secret), one spelling per token. */
class PresentedTokenTest {

  @Test
  void aGeneratedTokenParsesBackAndShowsOnlyItsId() {
    PresentedToken token = PresentedToken.generate(new SecureRandom());
    String text = token.reveal();

    assertThat(text).matches("[A-Za-z0-9_-]{12}\\.[A-Za-z0-9_-]{43}");
    PresentedToken parsed = PresentedToken.parse(text).orElseThrow();
    assertThat(parsed.id()).isEqualTo(token.id());
    assertThat(parsed.secretDigest()).isEqualTo(token.secretDigest());
    assertThat(token.toString()).doesNotContain(text.substring(13));
  }

  @Test
  void anythingElseIsNoToken() {
    String good = PresentedToken.generate(new SecureRandom()).reveal();
    assertThat(PresentedToken.parse(good.replace('.', ','))).isEmpty();
    assertThat(PresentedToken.parse(good + ".x")).isEmpty();
    assertThat(PresentedToken.parse(good + "=")).isEmpty();
    assertThat(PresentedToken.parse(good.substring(1))).isEmpty();
    assertThat(PresentedToken.parse(good.substring(0, 20) + "+" + good.substring(21))).isEmpty();
    assertThat(PresentedToken.parse("")).isEmpty();
    // The last character of the secret carries 2 unused bits: only zeros there is canonical.
    String secret = "A".repeat(42) + "B";
    assertThat(PresentedToken.parse("AAAAAAAAAAAA." + secret)).isEmpty();
    assertThat(PresentedToken.parse("AAAAAAAAAAAA." + "A".repeat(42) + "E")).isPresent();
  }
}
