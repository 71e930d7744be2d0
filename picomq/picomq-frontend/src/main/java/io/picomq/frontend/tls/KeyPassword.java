package io.picomq.frontend.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The passphrase of an encrypted private key, or none. A file is read at every load, so a reload
 * picks up a rotated passphrase together with the rotated key.
 */
public sealed interface KeyPassword {

  /** The key is not encrypted. */
  KeyPassword NONE = new None();

  /** The passphrase itself (e.g. from {@code PICO_TLS_KEY_PASSWORD}); never shown. */
  static KeyPassword of(String value) {
    return new Given(value);
  }

  /** A file holding the passphrase; a final line break is not part of it. */
  static KeyPassword inFile(Path file) {
    return new InFile(file);
  }

  /**
   * The passphrase now, empty for {@link #NONE}.
   *
   * @throws IllegalArgumentException naming the file when it cannot be read or is empty
   */
  Optional<char[]> read();

  /** No passphrase. */
  record None() implements KeyPassword {
    @Override
    public Optional<char[]> read() {
      return Optional.empty();
    }
  }

  /** A passphrase given as a value. */
  record Given(String value) implements KeyPassword {
    public Given {
      Objects.requireNonNull(value, "value");
      if (value.isEmpty()) {
        throw new IllegalArgumentException("a TLS key password must not be empty");
      }
    }

    @Override
    public Optional<char[]> read() {
      return Optional.of(value.toCharArray());
    }

    @Override
    public String toString() {
      return "Given[***]";
    }
  }

  /** A passphrase kept in a file. */
  record InFile(Path file) implements KeyPassword {
    public InFile {
      Objects.requireNonNull(file, "file");
    }

    @Override
    public Optional<char[]> read() {
      String content;
      try {
        content = Files.readString(file);
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException(
            "TLS key password file " + file + ": cannot read it (" + e + ")", e);
      }
      String password =
          content.endsWith("\r\n")
              ? content.substring(0, content.length() - 2)
              : content.endsWith("\n") ? content.substring(0, content.length() - 1) : content;
      if (password.isEmpty()) {
        throw new IllegalArgumentException("TLS key password file " + file + " is empty");
      }
      return Optional.of(password.toCharArray());
    }
  }
}
