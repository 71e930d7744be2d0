package io.picomq.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Renders the admin API's JSON for people: an object as aligned {@code key value} lines, an array
 * of objects as a table whose columns are the objects' keys. The admin answers are shallow, so
 * nothing deeper is needed.
 */
final class JsonText {
  private JsonText() {}

  /** Prints {@code object}'s fields; arrays of objects inside it follow as tables. */
  static void object(PrintWriter out, JsonNode object) {
    int width = 0;
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      width = Math.max(width, names.next().length());
    }
    List<Map.Entry<String, JsonNode>> tables = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      JsonNode value = field.getValue();
      if (value.isArray() && !value.isEmpty() && value.get(0).isObject()) {
        tables.add(field);
        continue;
      }
      out.println(pad(field.getKey(), width) + "  " + scalar(value));
    }
    for (Map.Entry<String, JsonNode> table : tables) {
      out.println();
      out.println(table.getKey() + ":");
      table(out, table.getValue());
    }
  }

  /** Prints an array of objects as a table, one row per object. */
  static void table(PrintWriter out, JsonNode array) {
    Set<String> columns = new LinkedHashSet<>();
    array.forEach(row -> row.fieldNames().forEachRemaining(columns::add));
    List<String> names = List.copyOf(columns);
    int[] widths = new int[names.size()];
    List<String[]> rows = new ArrayList<>();
    String[] header = new String[names.size()];
    for (int i = 0; i < names.size(); i++) {
      header[i] = names.get(i).toUpperCase(Locale.ROOT);
      widths[i] = header[i].length();
    }
    for (JsonNode row : array) {
      String[] cells = new String[names.size()];
      for (int i = 0; i < names.size(); i++) {
        cells[i] = row.has(names.get(i)) ? scalar(row.get(names.get(i))) : "-";
        widths[i] = Math.max(widths[i], cells[i].length());
      }
      rows.add(cells);
    }
    out.println(line(header, widths));
    rows.forEach(cells -> out.println(line(cells, widths)));
  }

  private static String line(String[] cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      line.append(i == 0 ? "" : "  ")
          .append(i == cells.length - 1 ? cells[i] : pad(cells[i], widths[i]));
    }
    return line.toString();
  }

  private static String scalar(JsonNode value) {
    if (value == null || value.isNull() || value.isMissingNode()) {
      return "-";
    }
    if (value.isArray() && value.isEmpty()) {
      return "none";
    }
    return value.isValueNode() ? value.asText() : value.toString();
  }

  private static String pad(String text, int width) {
    return text.length() >= width ? text : text + " ".repeat(width - text.length());
  }
}
