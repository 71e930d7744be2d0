package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The admin API of one node ({@code pico serve --admin-listen}): cluster state, nodes, where a
 * stream lives, placement weights and stream moves (transfer, cancel, drain, rebalance). Answers
 * are the server's JSON as Jackson trees (see the admin docs for their fields); errors are {@link
 * PicoException}s.
 */
public interface AdminClient extends AutoCloseable {

  /** A client of the admin listener at {@code adminEndpoint}, with its own HTTP/1.1 client. */
  static AdminClient create(URI adminEndpoint) {
    return new HttpAdminClient(
        adminEndpoint,
        HttpTransport.newClient(false, Duration.ofSeconds(10)),
        true,
        Duration.ofSeconds(30));
  }

  /**
   * A client of the admin listener at {@code adminEndpoint} ({@code https://}) whose certificate
   * the CA in {@code caCertificate} (a PEM file) signed, with its own HTTP/1.1 client.
   *
   * @throws IllegalArgumentException naming the file when it holds no readable certificate
   */
  static AdminClient create(URI adminEndpoint, Path caCertificate) {
    return new HttpAdminClient(
        adminEndpoint,
        HttpTransport.newClient(
            false, Duration.ofSeconds(10), Optional.of(TrustedCertificates.context(caCertificate))),
        true,
        Duration.ofSeconds(30));
  }

  /** A client of the admin listener at {@code adminEndpoint} that sends through {@code http}. */
  static AdminClient create(URI adminEndpoint, HttpClient http) {
    return new HttpAdminClient(adminEndpoint, http, false, Duration.ofSeconds(30));
  }

  /** {@code GET /admin/cluster}: cluster id, this node, readiness, counts, pending transfers. */
  JsonNode cluster();

  /** {@code GET /admin/nodes}: {@code {"nodes": [...]}}. */
  JsonNode nodes();

  /**
   * {@code GET /admin/streams/{name}}: owner, state, epoch, offsets, pending transfer.
   *
   * @throws StreamNotFoundException for an unknown stream
   */
  JsonNode stream(String name);

  /**
   * {@code POST /admin/transfer}: asks for {@code stream} to move to node {@code toNode}. Answers
   * {@code {"state": "pending"|"completed", ...}}.
   *
   * @throws ConflictException {@code already_on_node} or {@code transfer_conflict}
   */
  JsonNode transfer(String stream, long toNode);

  /** {@code POST /admin/nodes/{id}}: sets a node's placement weight. */
  JsonNode setSlots(long nodeId, int slots);

  /**
   * {@code POST /admin/transfer/cancel}: withdraws {@code stream}'s pending transfer; the stream
   * stays with its node. Answers {@code {"stream", "streamId", "state": "cancelled"|"none"}}
   * ({@code none}: nothing was pending).
   *
   * @throws StreamNotFoundException for an unknown stream
   */
  JsonNode cancelTransfer(String stream);

  /**
   * {@code POST /admin/drain}: sets node {@code nodeId}'s slots to 0 and asks for each of its
   * streams to move to another node. Answers {@code {"node", "previousSlots", "slots", "transfers":
   * [...], "refused": [...]}}.
   *
   * @throws ConflictException {@code no_target}: no other node can take streams (nothing changed)
   */
  JsonNode drain(long nodeId);

  /**
   * {@code POST /admin/rebalance} by stream count: moves streams so each node holds about its share
   * by slots. Answers {@code {"by", "transfers": [...], "refused": [...]}}.
   */
  JsonNode rebalance();

  /** Releases the HTTP client if this admin client made it. */
  @Override
  void close();
}
