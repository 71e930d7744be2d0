package io.picomq.frontend.pico;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.picomq.protocol.PicoHeaders;
import io.picomq.protocol.PicoMediaTypes;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code openapi.yaml} (shipped in the jar next to {@link PicoHandler}) honest: it is OpenAPI
 * 3.1 with the operations the handler serves and names every {@code Pico-*} header, and real
 * answers of a running listener have a status, headers, a media type and a JSON shape that the file
 * declares for the operation.
 */
class OpenApiContractTest extends PicoWireTest {

  /**
   * Headers of HTTP itself, not of the protocol; {@code Content-Type} is checked on its own. {@code
   * Vary: Origin} is on every answer while CORS origins are configured (the description says so).
   */
  private static final Set<String> TRANSPORT_HEADERS =
      Set.of("content-length", "content-type", "connection", "transfer-encoding", "date", "vary");

  private static final String BATCH_JSON = PicoMediaTypes.BATCH_JSON;

  private static JsonNode openApi;

  @BeforeAll
  static void readDescription() throws IOException {
    try (InputStream in = PicoHandler.class.getResourceAsStream("openapi.yaml")) {
      assertThat(in).as("openapi.yaml next to PicoHandler on the classpath").isNotNull();
      openApi = new ObjectMapper(new YAMLFactory()).readTree(in);
    }
  }

  @Test
  void isOpenApi31WithTheServedOperations() {
    assertThat(openApi.path("openapi").asText()).startsWith("3.1.");
    assertThat(fieldNames(openApi.path("paths"))).containsExactlyInAnyOrder("/", "/{stream}");
    assertThat(operations("/")).containsExactlyInAnyOrder("get", "options");
    assertThat(operations("/{stream}"))
        .containsExactlyInAnyOrder("put", "post", "get", "head", "delete", "options");
  }

  @Test
  void everyReferenceResolves() {
    List<String> refs = new ArrayList<>();
    collectRefs(openApi, refs);
    assertThat(refs).isNotEmpty();
    for (String ref : refs) {
      assertThat(ref).startsWith("#/");
      assertThat(openApi.at(ref.substring(1)).isMissingNode()).as("%s resolves", ref).isFalse();
    }
  }

  @Test
  void namesEveryPicoHeader() throws IllegalAccessException {
    Set<String> declared = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    for (String path : fieldNames(openApi.path("paths"))) {
      for (String method : operations(path)) {
        JsonNode operation = openApi.path("paths").path(path).path(method);
        for (JsonNode parameter : operation.path("parameters")) {
          JsonNode resolved = resolve(parameter);
          if (resolved.path("in").asText().equals("header")) {
            declared.add(resolved.path("name").asText());
          }
        }
        for (JsonNode response : operation.path("responses")) {
          declared.addAll(fieldNames(resolve(response).path("headers")));
        }
      }
    }
    List<String> constants = new ArrayList<>();
    for (Field field : PicoHeaders.class.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
        constants.add((String) field.get(null));
      }
    }

    assertThat(constants).hasSizeGreaterThan(10);
    assertThat(declared).containsAll(constants);
  }

  @Test
  void realAnswersAreDeclaredForTheirOperation() {
    PicoClient client = client(HttpClient.Version.HTTP_1_1);
    String name = PicoServer.freshName("openapi");
    String stream = "/{stream}";

    check(stream, "put", 201, client.put(name, "", "Content-Type", "text/plain", "Pico-TTL", "60"));
    check(stream, "put", 200, client.put(name, "", "Content-Type", "text/plain", "Pico-TTL", "60"));
    check(stream, "put", 409, client.put(name, "", "Content-Type", "application/json"));
    check(stream, "put", 400, client.put(name + "-bad", "", "Content-Type", "nonsense"));
    check(stream, "post", 200, client.post(name, "hello", "Content-Type", "text/plain"));
    check(
        stream,
        "post",
        200,
        client.post(
            name,
            "{\"records\":[{\"body\":\"a\",\"headers\":{\"k\":\"v\"}},{\"body_b64\":\"AP8=\"}]}",
            "Content-Type",
            BATCH_JSON));
    check(stream, "post", 400, client.post(name, "{\"records\":7}", "Content-Type", BATCH_JSON));
    check(stream, "post", 200, client.post(name, "x", producer("0")));
    check(stream, "post", 204, client.post(name, "x", producer("0")));
    check(stream, "post", 409, client.post(name, "x", producer("5")));
    check(stream, "post", 409, client.post(name, "x", "Pico-Match-Seq", "0"));

    PicoClient.Answer read = check(stream, "get", 200, client.get(name + "?seq=0"));
    assertThat(read.json()).hasSize(4);
    check(stream, "get", 304, client.get(name + "?seq=0", "If-None-Match", etag(read)));
    check(stream, "get", 400, client.get(name + "?seq=99"));
    check(stream, "get", 204, client.get(name + "?seq=now&live=long-poll"));
    check(stream, "get", 404, client.get(PicoServer.freshName("absent") + "?seq=0"));

    check(stream, "head", 200, client.head(name));
    check(stream, "head", 404, client.head(PicoServer.freshName("absent")));
    check(stream, "options", 204, client.send("OPTIONS", name, Map.of(), new byte[0]));
    check(
        stream,
        "options",
        204,
        client.send("OPTIONS", name, preflight("http://localhost:1"), new byte[0]));
    check(
        stream,
        "options",
        204,
        client.send("OPTIONS", name, preflight("https://evil.example"), new byte[0]));
    check(
        stream,
        "post",
        403,
        client.send(
            "POST",
            name,
            Map.of("Origin", "https://evil.example", "Content-Type", "text/plain"),
            new byte[] {'x'}));
    check(
        stream,
        "get",
        200,
        client.send("GET", name + "?seq=0", Map.of("Origin", "http://localhost:1"), new byte[0]));

    String prefix = name.substring(0, name.lastIndexOf('/') + 1);
    PicoClient.Answer list = check("/", "get", 200, client.get("/?prefix=" + prefix));
    assertThat(list.json().path("streams")).isNotEmpty();
    check("/", "get", 400, client.get("/?limit=0"));
    check("/", "options", 204, client.send("OPTIONS", "/", Map.of(), new byte[0]));

    check(stream, "post", 200, client.post(name, "", "Pico-Closed", "true"));
    check(stream, "post", 409, client.post(name, "late", "Content-Type", "text/plain"));
    check(stream, "head", 200, client.head(name));
    check(stream, "delete", 204, client.delete(name));
    check(stream, "delete", 404, client.delete(name));
  }

  /**
   * Asserts the answer is one the operation declares: its status, each protocol header (and that
   * the value fits the header's schema), the media type of a body, and for JSON the shape.
   */
  private static PicoClient.Answer check(
      String path, String method, int expectedStatus, PicoClient.Answer answer) {
    // The expected status makes sure each case reaches the answer it is meant to exercise.
    assertThat(answer.status()).as("%s %s: %s", method, path, answer).isEqualTo(expectedStatus);
    JsonNode operation = openApi.path("paths").path(path).path(method);
    assertThat(operation.isObject()).as("%s %s is declared", method, path).isTrue();
    String status = Integer.toString(answer.status());
    JsonNode response = operation.path("responses").path(status);
    assertThat(response.isMissingNode())
        .as("%s %s declares status %s for %s", method, path, status, answer)
        .isFalse();
    response = resolve(response);
    JsonNode declaredHeaders = response.path("headers");
    for (Map.Entry<String, List<String>> header : answer.headers().map().entrySet()) {
      String headerName = header.getKey().toLowerCase(Locale.ROOT);
      if (headerName.startsWith(":") || TRANSPORT_HEADERS.contains(headerName)) {
        continue;
      }
      JsonNode declared = field(declaredHeaders, headerName);
      assertThat(declared)
          .as("%s %s %s declares header %s (%s)", method, path, status, headerName, answer)
          .isNotNull();
      JsonNode schema = resolve(resolve(declared).path("schema"));
      for (String value : header.getValue()) {
        assertFits(schema, value, headerName + " of " + answer);
      }
    }
    if (answer.body().length > 0 && !method.equals("head")) {
      String mediaType =
          answer
              .header("content-type")
              .orElseThrow()
              .split(";")[0]
              .strip()
              .toLowerCase(Locale.ROOT);
      JsonNode content = response.path("content");
      JsonNode media = content.has(mediaType) ? content.get(mediaType) : content.get("*/*");
      assertThat(media)
          .as("%s %s %s declares a body of %s", method, path, status, mediaType)
          .isNotNull();
      if (mediaType.equals("application/json")) {
        assertShape(
            resolve(media.path("schema")), answer.json(), method + " " + path + " " + status);
      }
    }
    return answer;
  }

  /** The subset of JSON Schema the description uses for values: const, enum, pattern. */
  private static void assertFits(JsonNode schema, String value, String what) {
    if (schema.has("const")) {
      assertThat(value).as(what).isEqualTo(schema.get("const").asText());
    }
    if (schema.has("enum")) {
      List<String> allowed = new ArrayList<>();
      schema.get("enum").forEach(option -> allowed.add(option.asText()));
      assertThat(allowed).as(what).contains(value);
    }
    if (schema.has("pattern")) {
      assertThat(Pattern.compile(schema.get("pattern").asText()).matcher(value).find())
          .as("%s matches %s", what, schema.get("pattern"))
          .isTrue();
    }
  }

  /** Objects: required fields present, no undeclared field, string enums respected; recursive. */
  private static void assertShape(JsonNode schema, JsonNode value, String where) {
    if (schema.has("const") || schema.has("enum") || schema.has("pattern")) {
      assertFits(schema, value.asText(), where);
    }
    if (value.isArray() && schema.has("items")) {
      for (JsonNode item : value) {
        assertShape(resolve(schema.get("items")), item, where + "[]");
      }
    }
    if (!value.isObject() || !schema.has("properties")) {
      return;
    }
    for (JsonNode required : schema.path("required")) {
      assertThat(value.has(required.asText()))
          .as("%s has %s: %s", where, required.asText(), value)
          .isTrue();
    }
    JsonNode properties = schema.get("properties");
    for (String fieldName : fieldNames(value)) {
      assertThat(properties.has(fieldName))
          .as("%s declares field %s: %s", where, fieldName, value)
          .isTrue();
      assertShape(
          resolve(properties.get(fieldName)), value.get(fieldName), where + "." + fieldName);
    }
  }

  private static JsonNode resolve(JsonNode node) {
    while (node.has("$ref")) {
      node = openApi.at(node.get("$ref").asText().substring(1));
    }
    return node;
  }

  private static List<String> operations(String path) {
    List<String> methods = new ArrayList<>(fieldNames(openApi.path("paths").path(path)));
    methods.remove("parameters");
    return methods;
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names;
  }

  /** A field by case-insensitive name (header names), or null. */
  private static JsonNode field(JsonNode object, String name) {
    for (String candidate : fieldNames(object)) {
      if (candidate.equalsIgnoreCase(name)) {
        return object.get(candidate);
      }
    }
    return null;
  }

  private static void collectRefs(JsonNode node, List<String> refs) {
    if (node.has("$ref")) {
      refs.add(node.get("$ref").asText());
    }
    node.forEach(child -> collectRefs(child, refs));
  }

  private static String etag(PicoClient.Answer answer) {
    return answer.header("etag").orElseThrow(() -> new AssertionError("no ETag: " + answer));
  }

  private static Map<String, String> preflight(String origin) {
    return Map.of("Origin", origin, "Access-Control-Request-Method", "POST");
  }

  private static String[] producer(String seq) {
    return new String[] {
      "Pico-Producer-Id", "p", "Pico-Producer-Epoch", "0", "Pico-Producer-Seq", seq
    };
  }
}
