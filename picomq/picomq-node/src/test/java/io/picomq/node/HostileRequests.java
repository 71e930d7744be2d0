package io.picomq.node;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import io.picomq.frontend.ListenerProtocol;
import io.picomq.frontend.http.StreamNames;
import io.picomq.stream.Expiry;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Draws hostile requests for one protocol from a {@link Random}: every header and query parameter
 * the protocol reads, with boundary and garbage values (huge, negative, non-numeric, overflowing,
 * empty, repeated, not UTF-8); names at and around every length limit; lying binary batches and
 * malformed JSON. Names come from a small pool so requests build on each other's streams.
 *
 * <p>Strings here are byte strings: each char up to U+00FF is one byte on the wire, so {@code
 * "\u00ff\u00fe"} is invalid UTF-8 and {@code "\u00c3\u00a9"} is "é".
 */
final class HostileRequests {

  private static final List<String> METHODS =
      List.of(
          "PUT", "PUT", "POST", "POST", "POST", "GET", "GET", "HEAD", "DELETE", "OPTIONS", "PATCH");

  /** Values for every header and parameter: boundaries and garbage. */
  private static final List<String> VALUES =
      List.of(
          "0",
          "1",
          "2",
          "-1",
          "-5",
          "9223372036854775807",
          "9223372036854775808",
          "-9223372036854775808",
          "18446744073709551616",
          "999999999999999999",
          "1000000000000000000",
          "9007199254740991",
          "9007199254740992",
          "31556889864403199",
          "9300000000000000",
          Long.toString(Expiry.MAX_SECONDS),
          Long.toString(Expiry.MAX_SECONDS + 1),
          "2147483647",
          "2147483648",
          "4294967296",
          "1e9",
          "0x10",
          "+5",
          "05",
          " 7",
          "7 ",
          "",
          " ",
          "NaN",
          "true",
          "TRUE",
          "false",
          "yes",
          "null",
          "now",
          "long-poll",
          "sse",
          "raw",
          "json",
          "2030-01-01T00:00:00Z",
          "2999-01-01T00:00:00Z",
          "1970-01-01T00:00:00Z",
          "+999999999-12-31T23:59:59Z",
          "-999999999-01-01T00:00:00Z",
          "2030-02-30T00:00:00Z",
          "4102444800000",
          "garbage",
          "\u00ff\u00fe",
          "\u00c0\u00af",
          "\u00ed\u00a0\u0080",
          "\u00c3\u00a9",
          "%ff",
          "\u0001",
          "a".repeat(2000),
          "text/plain",
          "application/json",
          "application/vnd.picomq.batch",
          "application/vnd.picomq.batch+json",
          "0000000000000000_0000000000000000",
          "0000000000000000_0000000000000001",
          "9999999999999999_9999999999999999",
          "ffffffffffffffff_ffffffffffffffff",
          "0000000000000000_-000000000000001",
          "_",
          "/h/a",
          "/v1/stream/h/a",
          "/v1/stream/missing");

  /** Values for TTL and expiry headers: around every limit, the F1 values of issue 11 included. */
  private static final List<String> TIME_VALUES =
      List.of(
          "0",
          "-5",
          "999999999999999999",
          "31556889864403199",
          "9300000000000000",
          Long.toString(Expiry.MAX_SECONDS),
          Long.toString(Expiry.MAX_SECONDS + 1),
          "9223372036854775807",
          "2030-01-01T00:00:00Z",
          "2999-01-01T00:00:00Z",
          "+999999999-12-31T23:59:59Z",
          "4102444800000",
          "garbage");

  private static final List<String> PICO_HEADERS =
      List.of(
          "Pico-TTL",
          "Pico-Expires-At",
          "Pico-Producer-Id",
          "Pico-Producer-Epoch",
          "Pico-Producer-Seq",
          "Pico-Match-Seq",
          "Pico-Closed",
          "Pico-Trim-Seq",
          "Content-Type",
          "If-None-Match",
          "Last-Event-ID",
          "Accept",
          "Host");

  private static final List<String> PICO_PARAMS =
      List.of(
          "seq",
          "count",
          "bytes",
          "live",
          "format",
          "cursor",
          "prefix",
          "start_after",
          "limit",
          "x");

  private static final List<String> DS_HEADERS =
      List.of(
          "Stream-TTL",
          "Stream-Expires-At",
          "Stream-Closed",
          "Stream-Seq",
          "Stream-Forked-From",
          "Stream-Fork-Offset",
          "Stream-Fork-Sub-Offset",
          "Producer-Id",
          "Producer-Epoch",
          "Producer-Seq",
          "Content-Type",
          "If-None-Match",
          "Last-Event-ID",
          "Host");

  private static final List<String> DS_PARAMS = List.of("offset", "live", "cursor", "x");

  private static final List<String> CONTENT_TYPES =
      List.of(
          "text/plain",
          "application/json",
          "application/vnd.picomq.batch",
          "application/vnd.picomq.batch+json",
          "application/octet-stream",
          "x",
          "",
          "text/plain; charset=\u00ff",
          "application/json; x=\"");

  /** Names that streams of earlier cases live under, so later cases meet real state. */
  private static final List<String> POOL = List.of("/h/a", "/h/b", "/h/json", "/h/batch");

  private final ListenerProtocol protocol;

  HostileRequests(ListenerProtocol protocol) {
    this.protocol = protocol;
  }

  /** The names of the pool, as the protocol addresses them. */
  List<String> poolPaths() {
    return POOL.stream().map(this::path).toList();
  }

  /**
   * Half the time a focused request: well-formed but for one hostile header or parameter, so the
   * value reaches the code that reads it; otherwise a scattered one, hostile everywhere at once.
   */
  RawRequest draw(Random random) {
    return random.nextBoolean() ? focused(random) : scattered(random);
  }

  /**
   * The findings of issue 11 as requests, sent before the drawn ones in every run: the F1 expiries
   * that made a node unable to start, names past the registry key's limit, names that are not
   * UTF-8, and append-time expiry garbage.
   */
  List<RawRequest> known() {
    String ttl = protocol == ListenerProtocol.PICO ? "Pico-TTL" : "Stream-TTL";
    String at = protocol == ListenerProtocol.PICO ? "Pico-Expires-At" : "Stream-Expires-At";
    List<RawRequest> known = new ArrayList<>();
    int n = 0;
    for (String[] expiry :
        List.of(
            new String[] {ttl, "999999999999999999"},
            new String[] {ttl, "31556889864403199"},
            new String[] {ttl, "9300000000000000"},
            new String[] {ttl, Long.toString(Expiry.MAX_SECONDS)},
            new String[] {at, "+999999999-12-31T23:59:59Z"},
            new String[] {at, "9223372036854775807"})) {
      known.add(put("/known/f1-" + n++, List.of(Map.entry(expiry[0], expiry[1]))));
    }
    for (int bytes = StreamNames.MAX_BYTES - 1; bytes <= 1025; bytes++) {
      known.add(put("/" + "n".repeat(bytes - 1), List.of()));
    }
    for (String name : List.of("/%ff%fe", "/%c0%af", "/%fe%ff")) {
      known.add(put(name, List.of()));
    }
    for (String value : List.of("-5", "garbage")) {
      known.add(
          new RawRequest(
              "POST", path("/known/f1-0"), List.of(Map.entry(ttl, value)), "x".getBytes(UTF_8)));
      known.add(
          new RawRequest(
              "POST", path("/known/f1-0"), List.of(Map.entry(at, value)), "x".getBytes(UTF_8)));
    }
    return known;
  }

  private RawRequest put(String name, List<Map.Entry<String, String>> headers) {
    return new RawRequest("PUT", path(name), headers, new byte[0]);
  }

  private RawRequest focused(Random random) {
    String method = pick(random, METHODS);
    String name = random.nextInt(5) == 0 ? name(random) : pick(random, POOL);
    if (method.equals("PUT") && random.nextBoolean()) {
      name = "/h/p" + random.nextInt(1000); // a fresh name: a create, not a conflict
    }
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    String query = "";
    List<String> names = protocol == ListenerProtocol.PICO ? PICO_HEADERS : DS_HEADERS;
    if (method.equals("PUT") && random.nextBoolean()) {
      String ttl = protocol == ListenerProtocol.PICO ? "Pico-TTL" : "Stream-TTL";
      String at = protocol == ListenerProtocol.PICO ? "Pico-Expires-At" : "Stream-Expires-At";
      String header = random.nextBoolean() ? ttl : at;
      headers.add(Map.entry(header, value(random, header)));
    } else if (method.equals("GET") && random.nextBoolean()) {
      List<String> params = protocol == ListenerProtocol.PICO ? PICO_PARAMS : DS_PARAMS;
      query = "?" + pick(random, params) + "=" + percentEncode(pick(random, VALUES));
    } else {
      String header = pick(random, names);
      headers.add(Map.entry(header, value(random, header)));
    }
    byte[] body = new byte[0];
    if (method.equals("POST")) {
      body =
          switch (random.nextInt(4)) {
            case 0 -> {
              headers.add(Map.entry("Content-Type", "application/vnd.picomq.batch"));
              yield lyingBatch(random);
            }
            case 1 -> {
              headers.add(Map.entry("Content-Type", "application/vnd.picomq.batch+json"));
              yield pick(random, JSON).getBytes(ISO_8859_1);
            }
            default -> "x".getBytes(UTF_8);
          };
    }
    return new RawRequest(method, path(name) + query, headers, body);
  }

  private RawRequest scattered(Random random) {
    String method = pick(random, METHODS);
    String target = path(name(random)) + query(random);
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    List<String> names = protocol == ListenerProtocol.PICO ? PICO_HEADERS : DS_HEADERS;
    int count = random.nextInt(5);
    for (int i = 0; i < count; i++) {
      String name = pick(random, names);
      headers.add(Map.entry(name, value(random, name)));
      if (random.nextInt(8) == 0) {
        headers.add(Map.entry(name, value(random, name))); // repeated
      }
    }
    if (random.nextInt(4) == 0) {
      producer(random, headers);
    }
    if (method.equals("PUT") && random.nextInt(3) == 0) {
      String ttl = protocol == ListenerProtocol.PICO ? "Pico-TTL" : "Stream-TTL";
      String at = protocol == ListenerProtocol.PICO ? "Pico-Expires-At" : "Stream-Expires-At";
      String name = random.nextBoolean() ? ttl : at;
      headers.add(Map.entry(name, value(random, name)));
    }
    if (random.nextInt(40) == 0) {
      // Around the 16 KiB header limit: under it is served, over it is 431.
      int size = (16 << 10) - 64 + random.nextInt(128);
      headers.add(Map.entry("X-Padding", "p".repeat(size)));
    }
    return new RawRequest(method, target, headers, body(random, headers));
  }

  private String path(String name) {
    return protocol == ListenerProtocol.PICO ? name : "/v1/stream" + name;
  }

  /** A name from the pool, at or around a length limit, not UTF-8, or otherwise not a name. */
  private String name(Random random) {
    int limit = StreamNames.MAX_BYTES;
    return switch (random.nextInt(16)) {
      case 0 -> "/" + "n".repeat(limit - 2 + random.nextInt(4)); // 1016 to 1019 bytes
      case 1 -> "/" + "n".repeat(limit - 3 + random.nextInt(2)) + "%C3%A9"; // é across the limit
      case 2 -> "/" + "n".repeat(1020 + random.nextInt(8));
      case 3 -> "/" + "n".repeat(8150 + random.nextInt(80)); // around the 8 KiB request line
      case 4 -> pick(random, List.of("/%ff%fe", "/%c0%af", "/h/%ed%a0%80", "/%e2%82", "/h/%80"));
      case 5 -> pick(random, List.of("/", "//", "/h/..", "/h/a/", "/h/%00", "/h/%0a", "/h/%2e%2e"));
      case 6 -> protocol == ListenerProtocol.DS ? pick(random, List.of("", "x", "/../h")) : "/h/c";
      default -> pick(random, POOL);
    };
  }

  private static String query(Random random) {
    if (random.nextInt(3) == 0) {
      return "";
    }
    StringBuilder query = new StringBuilder();
    int count = 1 + random.nextInt(3);
    for (int i = 0; i < count; i++) {
      query.append(i == 0 ? '?' : '&');
      String name = pick(random, random.nextBoolean() ? PICO_PARAMS : DS_PARAMS);
      query.append(name).append('=').append(percentEncode(pick(random, VALUES)));
      if (random.nextInt(8) == 0) {
        query.append('&').append(name).append('=').append(percentEncode(pick(random, VALUES)));
      }
    }
    return query.toString();
  }

  private static String value(Random random, String header) {
    if (header.equals("Content-Type")) {
      return pick(random, CONTENT_TYPES);
    }
    if ((header.endsWith("TTL") || header.endsWith("Expires-At")) && random.nextInt(5) > 0) {
      return pick(random, TIME_VALUES);
    }
    if (random.nextInt(6) == 0) {
      return Long.toString(random.nextLong()); // a random long: negative half the time
    }
    return pick(random, VALUES);
  }

  /** All three producer headers, mostly well-formed, so appends reach the producer checks. */
  private void producer(Random random, List<Map.Entry<String, String>> headers) {
    String prefix = protocol == ListenerProtocol.PICO ? "Pico-Producer-" : "Producer-";
    headers.add(Map.entry(prefix + "Id", random.nextBoolean() ? "p" : pick(random, VALUES)));
    headers.add(Map.entry(prefix + "Epoch", random.nextBoolean() ? "0" : pick(random, VALUES)));
    headers.add(
        Map.entry(
            prefix + "Seq",
            random.nextBoolean() ? Integer.toString(random.nextInt(4)) : pick(random, VALUES)));
  }

  private static byte[] body(Random random, List<Map.Entry<String, String>> headers) {
    return switch (random.nextInt(10)) {
      case 0, 1 -> new byte[0];
      case 2 -> "x".getBytes(UTF_8);
      case 3 -> randomBytes(random);
      case 4 -> pick(random, JSON).getBytes(ISO_8859_1);
      case 5 -> "[".repeat(1 + random.nextInt(20_000)).getBytes(UTF_8);
      case 6, 7 -> {
        headers.add(Map.entry("Content-Type", "application/vnd.picomq.batch"));
        yield lyingBatch(random);
      }
      default -> {
        headers.add(Map.entry("Content-Type", "application/vnd.picomq.batch+json"));
        yield pick(random, JSON).getBytes(ISO_8859_1);
      }
    };
  }

  private static final List<String> JSON =
      List.of(
          "[1,2]",
          "[]",
          "{}",
          "[",
          "{\"records\":[{\"body\":\"a\"}]}",
          "{\"records\":[{\"body_b64\":\"AAE=\",\"headers\":{\"k\":\"v\"}}]}",
          "{\"records\":[]}",
          "{\"records\":[{\"body\":\"a\"}]",
          "{\"records\":[{\"body\":1e999}]}",
          "{\"records\":[{\"body\":\"\\ud800\"}]}",
          "{\"records\":[{\"body\":\"a\",\"headers\":{\"\":\"\"}}]}",
          "{\"records\":" + "[".repeat(5000) + "}",
          "\"" + "\\u0000".repeat(100) + "\"",
          "[1.000000000000000000001e400]",
          "\u00ff\u00fe");

  private static byte[] randomBytes(Random random) {
    byte[] bytes = new byte[random.nextInt(64)];
    random.nextBytes(bytes);
    return bytes;
  }

  /**
   * A binary batch ({@code version u8 | count u32 | (headerCount u32, (nameLen u32, name, valueLen
   * u32, value)*, bodyLen u32, body)*}) where any count or length may lie.
   */
  private static byte[] lyingBatch(Random random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int records = random.nextInt(3);
    out.write(random.nextInt(8) == 0 ? random.nextInt(256) : 1);
    writeInt(out, lie(random, records));
    for (int r = 0; r < records; r++) {
      int headerCount = random.nextInt(2);
      writeInt(out, lie(random, headerCount));
      for (int h = 0; h < headerCount; h++) {
        byte[] name = ("k" + h).getBytes(UTF_8);
        writeInt(out, lie(random, name.length));
        out.writeBytes(name);
        byte[] value = random.nextBoolean() ? "v".getBytes(UTF_8) : "\u00ff".getBytes(ISO_8859_1);
        writeInt(out, lie(random, value.length));
        out.writeBytes(value);
      }
      byte[] body = randomBytes(random);
      writeInt(out, lie(random, body.length));
      out.writeBytes(body);
    }
    byte[] batch = out.toByteArray();
    if (random.nextInt(6) == 0 && batch.length > 0) {
      return java.util.Arrays.copyOf(batch, random.nextInt(batch.length)); // cut short
    }
    return batch;
  }

  /** The truth most of the time; otherwise one off, zero, negative or huge. */
  private static int lie(Random random, int truth) {
    return switch (random.nextInt(10)) {
      case 0 -> truth + 1;
      case 1 -> truth - 1;
      case 2 -> pick(random, List.of(0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 1 << 24));
      default -> truth;
    };
  }

  private static void writeInt(ByteArrayOutputStream out, int value) {
    out.writeBytes(ByteBuffer.allocate(4).putInt(value).array());
  }

  /** Percent-encodes each byte (char) that is not unreserved. */
  private static String percentEncode(String value) {
    StringBuilder encoded = new StringBuilder();
    for (byte b : value.getBytes(ISO_8859_1)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "-._~".indexOf(c) >= 0) {
        encoded.append((char) c);
      } else {
        encoded.append('%').append(String.format(Locale.ROOT, "%02X", c));
      }
    }
    return encoded.toString();
  }

  private static <T> T pick(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
