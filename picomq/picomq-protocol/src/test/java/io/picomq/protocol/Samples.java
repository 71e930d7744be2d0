package io.picomq.protocol;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Random values for the property tests, rebuilt exactly from a seed. */
final class Samples {

  /** Characters from every UTF-8 length class, a surrogate pair among them. */
  private static final String[] ALPHABET = {
    "a", "Z", "-", "_", "0", "é", "ß", "€", "\uFFFD", "中", "😀", "\uD834\uDD1E", " ", "\n"
  };

  private Samples() {}

  static String text(Random random, int maxChars) {
    int length = random.nextInt(maxChars + 1);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < length; i++) {
      out.append(ALPHABET[random.nextInt(ALPHABET.length)]);
    }
    return out.toString();
  }

  static Map<String, String> headers(Random random) {
    Map<String, String> headers = new HashMap<>();
    int count = random.nextInt(5);
    for (int i = 0; i < count; i++) {
      String name = "h" + text(random, 6);
      headers.put(name, text(random, 12));
    }
    return headers;
  }

  static byte[] body(Random random) {
    byte[] body = new byte[random.nextInt(4) == 0 ? 0 : random.nextInt(200)];
    random.nextBytes(body);
    return body;
  }

  static Envelope envelope(Random random) {
    return Envelope.of(random.nextLong(), headers(random), body(random));
  }

  static List<AppendBatch.Entry> appendBatch(Random random) {
    List<AppendBatch.Entry> records = new ArrayList<>();
    int count = random.nextInt(6);
    for (int i = 0; i < count; i++) {
      records.add(AppendBatch.Entry.of(headers(random), body(random)));
    }
    return records;
  }

  static List<ReadBatch.Entry> readBatch(Random random) {
    List<ReadBatch.Entry> records = new ArrayList<>();
    long seq = random.nextLong(Long.MAX_VALUE / 2);
    int count = random.nextInt(6);
    for (int i = 0; i < count; i++) {
      records.add(ReadBatch.Entry.of(seq + i, random.nextLong(), headers(random), body(random)));
    }
    return records;
  }

  static byte[] hex(String spaced) {
    return HexFormat.of().parseHex(spaced.replace(" ", ""));
  }
}
