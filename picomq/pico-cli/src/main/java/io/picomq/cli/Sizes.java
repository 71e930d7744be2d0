package io.picomq.cli;

import java.util.Locale;

/** Parses byte sizes given on the command line: {@code 65536}, {@code 64KiB}, {@code 200MiB}. */
final class Sizes {
  private Sizes() {}

  static long parse(String flag, String text) {
    String value = text.strip();
    String lower = value.toLowerCase(Locale.ROOT);
    long unit = 1;
    String[][] units = {
      {"kib", "1024"},
      {"mib", "1048576"},
      {"gib", "1073741824"},
      {"kb", "1000"},
      {"mb", "1000000"},
      {"gb", "1000000000"},
      {"k", "1024"},
      {"m", "1048576"},
      {"g", "1073741824"},
      {"b", "1"}
    };
    for (String[] suffix : units) {
      if (lower.endsWith(suffix[0])) {
        unit = Long.parseLong(suffix[1]);
        value = value.substring(0, value.length() - suffix[0].length()).strip();
        break;
      }
    }
    try {
      long number = Long.parseLong(value);
      if (number < 0) {
        throw new IllegalArgumentException(flag + " must not be negative: " + text);
      }
      return Math.multiplyExact(number, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(flag + ": not a size: '" + text + "'", e);
    }
  }
}
