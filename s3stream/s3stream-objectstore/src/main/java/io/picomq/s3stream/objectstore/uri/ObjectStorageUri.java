package io.picomq.s3stream.objectstore.uri;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Names one object storage bucket: {@code bucketId@scheme://location?name=value&...}.
 *
 * <pre>
 *   -2@file://./objects                     a directory, relative to the working directory
 *   0@file:///var/lib/picomq/objects        an absolute directory
 *   0@s3://bucket?region=us-east-1          AWS S3
 *   -2@s3://bucket?region=us-east-1&amp;endpoint=http://host:9000&amp;pathStyle=true   MinIO, S3Proxy
 *   0@memory://test                         a new, empty in-memory store (the name is a label)
 * </pre>
 *
 * <p>The bucket id is the short the engine records with each object to say which bucket holds it.
 * Parameters are of two sorts. Backend parameters ({@code region}, {@code endpoint}, {@code
 * pathStyle}, for {@code s3} only) are checked here. Others, such as the WAL's {@link #WAL_PARAMS},
 * ride along for later layers: the parser accepts the names it is told to accept, keeps their
 * values as text in {@link #extraParams()}, and leaves checking the values to whoever reads them.
 * Any other name is an error, so a misspelt parameter never goes unnoticed. See {@code
 * s3stream/specification/object-storage.md} for the grammar.
 *
 * @param bucketId which bucket this is, in the engine's object metadata
 * @param scheme which backend
 * @param location the S3 bucket name, the directory path, or the memory store's label
 * @param params every parameter in the order given, values percent-decoded
 */
public record ObjectStorageUri(
    short bucketId, Scheme scheme, String location, Map<String, String> params) {

  /** The backends a URI can name. */
  public enum Scheme {
    MEMORY,
    FILE,
    S3;

    /** The scheme as written in a URI, e.g. {@code "s3"}. */
    public String text() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The WAL settings that may ride on a storage URI (the WAL validates them). */
  public static final Set<String> WAL_PARAMS =
      Set.of(
          "batchInterval",
          "maxBytesInBatch",
          "maxUnflushedBytes",
          "maxInflightUploadCount",
          "fenceCheck");

  public static final String REGION = "region";
  public static final String ENDPOINT = "endpoint";
  public static final String PATH_STYLE = "pathStyle";

  /** The region used when an {@code s3} URI gives none; most self-hosted stores accept it. */
  public static final String DEFAULT_REGION = "us-east-1";

  private static final Set<String> S3_PARAMS = Set.of(REGION, ENDPOINT, PATH_STYLE);
  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern REGION_NAME = Pattern.compile("[a-z0-9][a-z0-9-]*");
  private static final Pattern MEMORY_NAME = Pattern.compile("[A-Za-z0-9._-]*");
  private static final Pattern BUCKET_ID = Pattern.compile("-?[0-9]+");
  private static final Pattern PARAM_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]*");

  /**
   * Checks everything a URI's text does not already guarantee; the message of every {@link
   * IllegalArgumentException} is one line that says what is wrong.
   */
  public ObjectStorageUri {
    Objects.requireNonNull(scheme, "scheme");
    Objects.requireNonNull(location, "location");
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    checkLocation(scheme, location);
    for (Map.Entry<String, String> p : params.entrySet()) {
      checkParam(scheme, p.getKey(), p.getValue());
    }
  }

  /** Parses {@code text}, accepting the {@link #WAL_PARAMS} besides the backend's own. */
  public static ObjectStorageUri parse(String text) {
    return parse(text, WAL_PARAMS);
  }

  /**
   * Parses {@code text}, accepting the parameter names in {@code extraParams} besides the backend's
   * own.
   *
   * @throws IllegalArgumentException with a one-line message naming the problem
   */
  public static ObjectStorageUri parse(String text, Set<String> extraParams) {
    Objects.requireNonNull(text, "text");
    try {
      return parseOrThrow(text, extraParams);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "invalid storage URI '" + text + "': " + e.getMessage(), e.getCause());
    }
  }

  /** The S3 bucket name. */
  public String bucket() {
    requireScheme(Scheme.S3, "bucket");
    return location;
  }

  /** The directory of a {@code file} store, as written (relative paths resolve later). */
  public Path path() {
    requireScheme(Scheme.FILE, "path");
    return Path.of(location);
  }

  /** The S3 signing region; {@value #DEFAULT_REGION} when the URI gives none. */
  public String region() {
    requireScheme(Scheme.S3, REGION);
    return params.getOrDefault(REGION, DEFAULT_REGION);
  }

  /** The S3 endpoint for non-AWS stores; empty for AWS itself. */
  public Optional<URI> endpoint() {
    requireScheme(Scheme.S3, ENDPOINT);
    return Optional.ofNullable(params.get(ENDPOINT)).map(URI::create);
  }

  /** Whether to address the bucket in the path ({@code endpoint/bucket}); false by default. */
  public boolean pathStyle() {
    requireScheme(Scheme.S3, PATH_STYLE);
    return Boolean.parseBoolean(params.getOrDefault(PATH_STYLE, "false"));
  }

  /** The parameters that are not the backend's own, in the order given. */
  public Map<String, String> extraParams() {
    Map<String, String> extra = new LinkedHashMap<>(params);
    extra.keySet().removeAll(S3_PARAMS);
    return Collections.unmodifiableMap(extra);
  }

  /** The same bucket under another id (the WAL shares the data bucket under the next id). */
  public ObjectStorageUri withBucketId(short newBucketId) {
    return new ObjectStorageUri(newBucketId, scheme, location, params);
  }

  /** The URI in its text form; {@link #parse} reads it back to an equal record. */
  @Override
  public String toString() {
    StringBuilder text =
        new StringBuilder().append(bucketId).append('@').append(scheme.text()).append("://");
    text.append(location);
    char separator = '?';
    for (Map.Entry<String, String> p : params.entrySet()) {
      text.append(separator).append(p.getKey()).append('=').append(encode(p.getValue()));
      separator = '&';
    }
    return text.toString();
  }

  private static ObjectStorageUri parseOrThrow(String text, Set<String> extraParams) {
    if (text.isBlank()) {
      throw new IllegalArgumentException("it is empty (expected e.g. 0@file://./objects)");
    }
    int at = text.indexOf('@');
    if (at < 0) {
      throw new IllegalArgumentException(
          "missing '@' between the bucket id and the URI (expected e.g. 0@s3://bucket)");
    }
    short bucketId = parseBucketId(text.substring(0, at));
    String rest = text.substring(at + 1);
    int sep = rest.indexOf("://");
    if (sep < 0) {
      throw new IllegalArgumentException(
          "missing '://' after the scheme (expected memory://, file:// or s3://)");
    }
    Scheme scheme = parseScheme(rest.substring(0, sep));
    String afterScheme = rest.substring(sep + 3);
    int question = afterScheme.indexOf('?');
    String location = question < 0 ? afterScheme : afterScheme.substring(0, question);
    Map<String, String> params =
        question < 0
            ? Map.of()
            : parseParams(scheme, afterScheme.substring(question + 1), extraParams);
    return new ObjectStorageUri(bucketId, scheme, location, params);
  }

  private static short parseBucketId(String text) {
    if (text.isEmpty()) {
      throw new IllegalArgumentException("missing bucket id before '@'");
    }
    if (!BUCKET_ID.matcher(text).matches()) {
      throw new IllegalArgumentException("bucket id '" + text + "' is not an integer");
    }
    int id;
    try {
      id = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      id = Integer.MAX_VALUE; // more digits than an int holds: out of range below
    }
    if (id < Short.MIN_VALUE || id > Short.MAX_VALUE) {
      throw new IllegalArgumentException(
          "bucket id " + text + " is outside " + Short.MIN_VALUE + ".." + Short.MAX_VALUE);
    }
    return (short) id;
  }

  private static Scheme parseScheme(String text) {
    for (Scheme s : Scheme.values()) {
      if (s.text().equals(text)) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        (text.isEmpty() ? "missing scheme" : "unknown scheme '" + text + "'")
            + " (expected memory, file or s3)");
  }

  private static Map<String, String> parseParams(
      Scheme scheme, String query, Set<String> extraParams) {
    if (query.isEmpty()) {
      throw new IllegalArgumentException("nothing after '?' (expected name=value)");
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (String pair : query.split("&", -1)) {
      int eq = pair.indexOf('=');
      if (pair.isEmpty()) {
        throw new IllegalArgumentException("empty parameter (a stray '&')");
      }
      if (eq <= 0) {
        throw new IllegalArgumentException(
            eq == 0
                ? "parameter '" + pair + "' has no name"
                : "parameter '" + pair + "' has no value (expected " + pair + "=value)");
      }
      String name = pair.substring(0, eq);
      if (!backendParams(scheme).contains(name) && !extraParams.contains(name)) {
        throw unknownParam(scheme, name, extraParams);
      }
      if (params.put(name, decode(name, pair.substring(eq + 1))) != null) {
        throw new IllegalArgumentException("parameter '" + name + "' is given twice");
      }
    }
    return params;
  }

  private static IllegalArgumentException unknownParam(
      Scheme scheme, String name, Set<String> extraParams) {
    if (S3_PARAMS.contains(name)) {
      return new IllegalArgumentException(
          "parameter '" + name + "' applies to s3:// only, not " + scheme.text() + "://");
    }
    Set<String> known = new TreeSet<>(backendParams(scheme));
    known.addAll(extraParams);
    return new IllegalArgumentException(
        "unknown parameter '"
            + name
            + "' for "
            + scheme.text()
            + ":// (known: "
            + (known.isEmpty() ? "none" : String.join(", ", known))
            + ")");
  }

  private static Set<String> backendParams(Scheme scheme) {
    return scheme == Scheme.S3 ? S3_PARAMS : Set.of();
  }

  private static void checkLocation(Scheme scheme, String location) {
    checkWellFormed("location", location);
    if (location.indexOf('?') >= 0) {
      throw new IllegalArgumentException("location '" + location + "' contains '?'");
    }
    switch (scheme) {
      case MEMORY -> {
        if (!MEMORY_NAME.matcher(location).matches()) {
          throw new IllegalArgumentException(
              "memory store name '" + location + "' may hold only A-Z, a-z, 0-9, '.', '_', '-'");
        }
      }
      case FILE -> {
        if (location.isEmpty()) {
          throw new IllegalArgumentException(
              "missing directory after file:// (e.g. file://./objects)");
        }
        if (location.indexOf('\0') >= 0) {
          throw new IllegalArgumentException("directory '" + location + "' contains NUL");
        }
      }
      case S3 -> {
        if (location.isEmpty()) {
          throw new IllegalArgumentException("missing bucket after s3:// (e.g. s3://my-bucket)");
        }
        if (location.contains("/")) {
          throw new IllegalArgumentException(
              "bucket '" + location + "' contains '/': a storage URI names a whole bucket");
        }
        if (!BUCKET.matcher(location).matches() || location.contains("..")) {
          throw new IllegalArgumentException(
              "bucket '"
                  + location
                  + "' is not a valid S3 bucket name (3-63 characters of a-z, 0-9, '.' and '-',"
                  + " starting and ending with a letter or digit, no '..')");
        }
      }
    }
  }

  private static void checkParam(Scheme scheme, String name, String value) {
    Objects.requireNonNull(name, "parameter name");
    Objects.requireNonNull(value, "value of " + name);
    checkWellFormed("parameter '" + name + "'", value);
    if (!PARAM_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "parameter name '"
              + name
              + "' must be a letter followed by A-Z, a-z, 0-9, '_', '.', '-'");
    }
    if (!S3_PARAMS.contains(name)) {
      return;
    }
    if (scheme != Scheme.S3) {
      throw new IllegalArgumentException(
          "parameter '" + name + "' applies to s3:// only, not " + scheme.text() + "://");
    }
    switch (name) {
      case REGION -> {
        if (!REGION_NAME.matcher(value).matches()) {
          throw new IllegalArgumentException(
              "region '" + value + "' is not a region name (e.g. us-east-1)");
        }
      }
      case ENDPOINT -> checkEndpoint(value);
      case PATH_STYLE -> {
        if (!value.equals("true") && !value.equals("false")) {
          throw new IllegalArgumentException(
              "pathStyle must be true or false, not '" + value + "'");
        }
      }
      default -> throw new IllegalStateException("unhandled s3 parameter " + name);
    }
  }

  private static void checkEndpoint(String value) {
    String problem =
        "endpoint '"
            + value
            + "' must be an http:// or https:// URL of a host, e.g. http://host:9000";
    URI uri;
    try {
      uri = new URI(value);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(problem + " (" + e.getReason() + ")");
    }
    boolean web = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
    boolean bare =
        uri.getRawUserInfo() == null
            && uri.getRawQuery() == null
            && uri.getRawFragment() == null
            && (uri.getRawPath() == null
                || uri.getRawPath().isEmpty()
                || uri.getRawPath().equals("/"));
    if (!web || uri.getHost() == null || !bare) {
      throw new IllegalArgumentException(problem);
    }
  }

  /** Text that UTF-8 cannot carry (a lone surrogate) would not survive a round trip. */
  private static void checkWellFormed(String what, String text) {
    if (!StandardCharsets.UTF_8.newEncoder().canEncode(text)) {
      throw new IllegalArgumentException(what + " is not well-formed Unicode");
    }
  }

  private void requireScheme(Scheme expected, String what) {
    if (scheme != expected) {
      throw new IllegalStateException(
          what + " is defined for " + expected.text() + ":// URIs, not " + this);
    }
  }

  private static String decode(String name, String value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
    byte[] raw = value.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < raw.length; i++) {
      if (raw[i] != '%') {
        bytes.write(raw[i]);
        continue;
      }
      int hi = i + 2 < raw.length ? Character.digit(raw[i + 1], 16) : -1;
      int lo = i + 2 < raw.length ? Character.digit(raw[i + 2], 16) : -1;
      if (hi < 0 || lo < 0) {
        throw new IllegalArgumentException(
            "parameter '" + name + "' has a broken %-escape in '" + value + "'");
      }
      bytes.write(hi << 4 | lo);
      i += 2;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "parameter '" + name + "' has %-escapes that are not UTF-8 in '" + value + "'");
    }
  }

  private static String encode(String value) {
    StringBuilder out = new StringBuilder(value.length());
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if (c <= 0x20 || c >= 0x7F || c == '%' || c == '&' || c == '#' || c == '+') {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        out.append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      } else {
        out.append((char) c);
      }
    }
    return out.toString();
  }
}
