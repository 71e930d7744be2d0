package io.picomq.node;

import java.util.Objects;

/**
 * A value that must not be shown: {@link #toString()} hides it, so a configuration that holds one
 * can be printed, logged or put in an exception message. {@link #reveal()} gives it to the one
 * place that sends it where it belongs.
 */
public final class Secret {

  private final String value;

  public Secret(String value) {
    this.value = Objects.requireNonNull(value, "value");
    if (value.isEmpty()) {
      throw new IllegalArgumentException("a secret must not be empty");
    }
  }

  public String reveal() {
    return value;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Secret secret && secret.value.equals(value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return "***";
  }
}
