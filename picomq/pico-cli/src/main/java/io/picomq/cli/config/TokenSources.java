package io.picomq.cli.config;

import io.picomq.cli.ExitCode;
import io.picomq.cli.Failure;
import io.picomq.client.BearerToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The token a client command sends, from {@code --token} or {@code --token-file}, else {@code
 * PICO_TOKEN} or {@code PICO_TOKEN_FILE}, else the profile's {@code token} or {@code token-file};
 * none when no level has either. A token file holds the token on its first line; surrounding
 * whitespace (the newline {@code echo} adds) is ignored.
 */
public final class TokenSources {
  private TokenSources() {}

  /**
   * @param tokenFlag the value of {@code --token}, or null
   * @param tokenFileFlag the value of {@code --token-file}, or null
   * @throws IllegalArgumentException if two ways are given at the same level, or the token is
   *     malformed (the message never repeats it)
   * @throws Failure if the token file cannot be read
   */
  public static Optional<BearerToken> token(
      Settings settings, String tokenFlag, String tokenFileFlag) {
    Map<Setting, String> flags = new java.util.EnumMap<>(Setting.class);
    if (tokenFlag != null) {
      flags.put(Setting.TOKEN, tokenFlag);
    }
    if (tokenFileFlag != null) {
      flags.put(Setting.TOKEN_FILE, tokenFileFlag);
    }
    return settings
        .resolveOneOf(Setting.CREDENTIALS, flags)
        .map(
            chosen ->
                chosen.setting() == Setting.TOKEN
                    ? new BearerToken(chosen.resolved().value())
                    : read(Path.of(chosen.resolved().value()), chosen.resolved().source()));
  }

  private static BearerToken read(Path file, String source) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new Failure(
          ExitCode.FAILURE,
          "cannot read the token file "
              + file
              + " (from "
              + source
              + "): "
              + e.getClass().getSimpleName());
    }
    return new BearerToken(
        Setting.TOKEN.validate(text, "the token file " + file + " (from " + source + ")"));
  }
}
