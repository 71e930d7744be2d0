package io.picomq.e2e.access;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;

/** Tokens for tests: made offline as an operator would, and sent as bearer credentials. */
final class Tokens {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private Tokens() {}

  /** A fresh token: BASE64URL(9 random bytes).BASE64URL(32 random bytes), no padding. */
  static String fresh() {
    SecureRandom random = new SecureRandom();
    byte[] id = new byte[9];
    byte[] secret = new byte[32];
    random.nextBytes(id);
    random.nextBytes(secret);
    Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
    return base64.encodeToString(id) + "." + base64.encodeToString(secret);
  }

  /** {@code method url} with {@code token} (none when null) and a JSON body (none when null). */
  static HttpResponse<String> send(String method, URI url, String token, String json)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (url.getPath().startsWith("/admin/") && !method.equals("GET")) {
      request.header("Content-Type", "application/json");
    }
    request.method(
        method,
        json == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(json));
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
