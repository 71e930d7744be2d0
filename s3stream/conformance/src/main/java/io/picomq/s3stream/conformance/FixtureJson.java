package io.picomq.s3stream.conformance;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Writes fixture manifests as JSON, byte-for-byte the same on every run: keys in insertion order,
 * one object per line, numbers in Java's decimal form. Only the value types manifests use are
 * supported; anything else is a generator bug.
 */
final class FixtureJson {

  private FixtureJson() {}

  /** A JSON array of objects, one per line, with a trailing newline. */
  static byte[] manifest(List<Map<String, Object>> entries) {
    StringBuilder out = new StringBuilder("[\n");
    for (int i = 0; i < entries.size(); i++) {
      out.append("  ");
      value(entries.get(i), out);
      out.append(i + 1 < entries.size() ? ",\n" : "\n");
    }
    return out.append("]\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A single JSON object, pretty enough to diff, with a trailing newline. */
  static byte[] document(Map<String, Object> fields) {
    StringBuilder out = new StringBuilder("{\n");
    int i = 0;
    for (Map.Entry<String, Object> field : fields.entrySet()) {
      out.append("  ");
      string(field.getKey(), out);
      out.append(": ");
      value(field.getValue(), out);
      out.append(++i < fields.size() ? ",\n" : "\n");
    }
    return out.append("}\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void value(Object value, StringBuilder out) {
    switch (value) {
      case String s -> string(s, out);
      case Long n -> out.append(n.longValue());
      case Integer n -> out.append(n.intValue());
      case Boolean b -> out.append(b.booleanValue());
      case Map<?, ?> map -> {
        out.append('{');
        int i = 0;
        for (Map.Entry<?, ?> field : map.entrySet()) {
          if (i++ > 0) {
            out.append(", ");
          }
          string((String) field.getKey(), out);
          out.append(": ");
          value(field.getValue(), out);
        }
        out.append('}');
      }
      case List<?> list -> {
        out.append('[');
        for (int i = 0; i < list.size(); i++) {
          if (i > 0) {
            out.append(", ");
          }
          value(list.get(i), out);
        }
        out.append(']');
      }
      default ->
          throw new IllegalArgumentException("unsupported manifest value " + value.getClass());
    }
  }

  private static void string(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7E) {
        throw new IllegalArgumentException("manifest strings are printable ASCII: " + s);
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }
}
