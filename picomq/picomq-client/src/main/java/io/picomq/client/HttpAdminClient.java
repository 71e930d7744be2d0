package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;

/** {@link AdminClient} over java.net.http. */
final class HttpAdminClient implements AdminClient {

  HttpAdminClient(URI adminEndpoint, HttpClient http) {}

  @Override
  public JsonNode cluster() {
    throw new UnsupportedOperationException("not yet");
  }

  @Override
  public JsonNode nodes() {
    throw new UnsupportedOperationException("not yet");
  }

  @Override
  public JsonNode stream(String name) {
    throw new UnsupportedOperationException("not yet");
  }

  @Override
  public JsonNode transfer(String stream, long toNode) {
    throw new UnsupportedOperationException("not yet");
  }

  @Override
  public JsonNode setSlots(long nodeId, int slots) {
    throw new UnsupportedOperationException("not yet");
  }

  @Override
  public void close() {}
}
