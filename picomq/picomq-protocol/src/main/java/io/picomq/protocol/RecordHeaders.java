package io.picomq.protocol;

import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A record's application headers in their canonical form: names sorted by {@link #NAME_ORDER}, each
 * name non-empty, names and values well-formed Unicode. Every encoding in this package writes
 * headers in this order and every decoder insists on it, so a header map has exactly one encoding.
 */
public final class RecordHeaders {

  /**
   * Names compared by Unicode code point, which is the order of their UTF-8 bytes compared
   * unsigned: what a client in any language gets from a plain byte comparison. ({@link
   * String#compareTo} differs: it compares UTF-16 units, so {@code "\uFFFD"} would sort after an
   * emoji there and before it here.)
   */
  public static final Comparator<String> NAME_ORDER = RecordHeaders::compareCodePoints;

  private RecordHeaders() {}

  /**
   * An unmodifiable copy of {@code headers} in name order.
   *
   * @throws IllegalArgumentException if a name is empty, or a name or value is not well-formed
   *     UTF-16 (a lone surrogate has no UTF-8 encoding)
   * @throws NullPointerException if a name or value is null
   */
  public static SortedMap<String, String> canonical(Map<String, String> headers) {
    TreeMap<String, String> sorted = new TreeMap<>(NAME_ORDER);
    headers.forEach(
        (name, value) -> {
          Objects.requireNonNull(name, "header name");
          Objects.requireNonNull(value, () -> "value of header " + name);
          if (name.isEmpty()) {
            throw new IllegalArgumentException("a header name must not be empty");
          }
          requireWellFormed(name, "header name");
          requireWellFormed(value, "value of header " + name);
          sorted.put(name, value);
        });
    return Collections.unmodifiableSortedMap(sorted);
  }

  private static void requireWellFormed(String text, String what) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(what + " has a lone surrogate at index " + i);
      }
    }
  }

  private static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int left = a.codePointAt(i);
      int right = b.codePointAt(j);
      if (left != right) {
        return Integer.compare(left, right);
      }
      i += Character.charCount(left);
      j += Character.charCount(right);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }
}
