package io.picomq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BearerTokenTest {

  @Test
  void aRandomTokenIsBase64urlIdDotSecretWithoutPadding() {
    SecureRandom random = new SecureRandom();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      String token = BearerToken.random(random).value();
      assertThat(token).matches("[A-Za-z0-9_-]{12}\\.[A-Za-z0-9_-]{43}");
      String[] parts = token.split("\\.");
      assertThat(Base64.getUrlDecoder().decode(parts[0])).hasSize(9);
      assertThat(Base64.getUrlDecoder().decode(parts[1])).hasSize(32);
      seen.add(token);
    }
    assertThat(seen).hasSize(100);
  }

  @Test
  void theTextNeverShowsInToStringOrInErrors() {
    String secret = "abc.def-secret";
    assertThat(new BearerToken(secret).toString()).doesNotContain("def-secret");
    assertThat(new IssuedToken(new BearerToken(secret), AdminTokensTest.info("abc")).toString())
        .doesNotContain("def-secret");
    assertThatThrownBy(() -> new BearerToken("abc.def-secret\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a token has only visible ASCII characters, and this one has a line break at position"
                + " 14");
    assertThatThrownBy(() -> new BearerToken("abc def-secret"))
        .hasMessageNotContaining("def-secret")
        .hasMessageContaining("U+0020");
    assertThatThrownBy(() -> new BearerToken("")).hasMessage("a token must not be empty");
  }
}
