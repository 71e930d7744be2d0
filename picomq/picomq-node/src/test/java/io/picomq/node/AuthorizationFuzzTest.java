package io.picomq.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.frontend.ListenerProtocol;
import io.picomq.frontend.access.PresentedToken;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzzed {@code Authorization} headers, sent byte for byte to both listeners of a node with access
 * control on: random schemes, lengths and bytes, and mutations of a real token. None may answer 500
 * or go unanswered. Seeded: the seed is printed and {@code -Dpicomq.seed=N} replays it.
 */
class AuthorizationFuzzTest {
  private static final long SEED = Long.getLong("picomq.seed", new Random().nextLong());
  private static final int CASES = 300;
  private static final List<String> SCHEMES =
      List.of("Bearer ", "bearer ", "BEARER ", "Bearer  ", "Basic ", "Token ", "", "Bearer");
  private static final String ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ";

  @TempDir Path dir;
  private final String root = PresentedToken.generate(new SecureRandom()).reveal();
  private Node node;

  @BeforeEach
  void start() throws Exception {
    node =
        Node.start(
            AdminApiTest.config(dir, 1, ListenerProtocol.PICO)
                .newBuilder()
                .access(AccessTestSupport.on(root))
                .build(),
            Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    node.stop(Duration.ZERO);
  }

  @Test
  void noAuthorizationHeaderAnswers500OrHangs() {
    System.out.printf(
        java.util.Locale.ROOT,
        "AuthorizationFuzzTest: seed %d, %d cases (rerun with -Dpicomq.seed=%d)%n",
        SEED,
        CASES,
        SEED);
    Random random = new Random(SEED);
    InetSocketAddress data = node.address();
    InetSocketAddress admin = node.adminAddress().orElseThrow();
    for (int i = 0; i < CASES; i++) {
      String value = SCHEMES.get(random.nextInt(SCHEMES.size())) + credential(random);
      boolean toAdmin = random.nextBoolean();
      RawRequest request =
          toAdmin
              ? new RawRequest(
                  "GET", "/admin/cluster", List.of(Map.entry("Authorization", value)), new byte[0])
              : new RawRequest(
                  random.nextBoolean() ? "GET" : "POST",
                  "/fuzz/s",
                  List.of(
                      Map.entry("Authorization", value), Map.entry("Content-Type", "text/plain")),
                  "body".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
      RawRequest.Answer answer = request.send(toAdmin ? admin : data, 10_000);
      assertThat(answer.status())
          .as("seed %d, case %d: %s%n-> %s", SEED, i, request, answer.text())
          .isBetween(400, 499);
    }
  }

  /** A token-like string: random bytes, random alphabet text, or a real token mutated. */
  private String credential(Random random) {
    return switch (random.nextInt(3)) {
      case 0 -> {
        StringBuilder bytes = new StringBuilder();
        int length = random.nextInt(300);
        for (int i = 0; i < length; i++) {
          // Any byte but CR and LF, which would end the header line (that is framing, not auth).
          char c = (char) (random.nextInt(0xFF - 0x20) + 0x20);
          bytes.append(c == 0x7f ? 'x' : c);
        }
        yield bytes.toString();
      }
      case 1 -> {
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(80);
        for (int i = 0; i < length; i++) {
          text.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        yield text.toString();
      }
      default -> {
        StringBuilder token = new StringBuilder(root);
        int edits = 1 + random.nextInt(3);
        for (int i = 0; i < edits; i++) {
          int at = random.nextInt(token.length());
          switch (random.nextInt(3)) {
            case 0 -> token.setCharAt(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            case 1 -> token.deleteCharAt(at);
            default -> token.insert(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
          }
        }
        String mutated = token.toString();
        // A mutation that gave the root token back is not a fuzzed credential.
        yield mutated.equals(root) ? mutated + "x" : mutated;
      }
    };
  }
}
