package io.picomq.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The admin API of one node ({@code pico serve --admin-listen}): cluster state, nodes, where a
 * stream lives, placement weights and stream moves (transfer, cancel, drain, rebalance). Answers
 * are the server's JSON as Jackson trees (see the admin docs for their fields), except tokens and
 * the anonymous scope, which have small records; errors are {@link PicoException}s.
 *
 * <p>With access control on, give the client a token whose scope has the {@code admin} audience:
 * {@code AdminClient.builder().endpoint(uri).token(token).build()}.
 */
public interface AdminClient extends AutoCloseable {

  /**
   * A client of the admin listener at {@code adminEndpoint}, without a token, with its own HTTP/1.1
   * client.
   */
  static AdminClient create(URI adminEndpoint) {
    return builder().endpoint(adminEndpoint).build();
  }

  /**
   * A client of the admin listener at {@code adminEndpoint} ({@code https://}) whose certificate
   * the CA in {@code caCertificate} (a PEM file) signed, without a token, with its own HTTP/1.1
   * client.
   *
   * @throws IllegalArgumentException naming the file when it holds no readable certificate
   */
  static AdminClient create(URI adminEndpoint, Path caCertificate) {
    return builder().endpoint(adminEndpoint).caCertificate(caCertificate).build();
  }

  /**
   * A client of the admin listener at {@code adminEndpoint}, without a token, that sends through
   * {@code http}.
   */
  static AdminClient create(URI adminEndpoint, HttpClient http) {
    return builder().endpoint(adminEndpoint).httpClient(http).build();
  }

  /** A builder with every setting at its default. */
  static Builder builder() {
    return new Builder();
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

  /**
   * {@code POST /admin/tokens}: issues a token with {@code scope}, which must be no wider than the
   * token of this client (the server does not narrow it silently).
   *
   * @param label a note for the listing, e.g. who the token is for
   * @throws ForbiddenException if {@code scope} is wider than this client's token
   * @throws BadRequestException for an unknown operation or audience, or a past expiry
   */
  IssuedToken issueToken(TokenScope scope, Optional<String> label);

  /** {@code GET /admin/tokens}: every live token, without secrets. */
  List<TokenInfo> tokens();

  /**
   * {@code DELETE /admin/tokens/{id}}: revokes a token; every node refuses it from its next
   * request.
   *
   * @throws TokenNotFoundException if no token has that id
   */
  void revokeToken(String id);

  /** {@code GET /admin/anonymous}: what requests without a token may do; empty if nothing. */
  Optional<TokenScope> anonymousScope();

  /** {@code PUT /admin/anonymous}: lets requests without a token do what {@code scope} allows. */
  void setAnonymousScope(TokenScope scope);

  /** {@code DELETE /admin/anonymous}: requests without a token are refused again. */
  void clearAnonymousScope();

  /** Releases the HTTP client if this admin client made it. */
  @Override
  void close();

  /**
   * Builds an {@link AdminClient}. Each setting may be made once; setting one twice fails instead
   * of the last one silently winning.
   */
  final class Builder {
    private URI endpoint;
    private BearerToken token;
    private HttpClient httpClient;
    private Duration requestTimeout;
    private Duration connectTimeout;
    private Path caCertificate;

    private Builder() {}

    /** The admin listener's base URI (required), e.g. {@code http://127.0.0.1:9090}. */
    public Builder endpoint(URI endpoint) {
      this.endpoint = OptionChecks.once(this.endpoint, endpoint, "endpoint");
      return this;
    }

    /**
     * The token sent as {@code Authorization: Bearer ...} with every request (default: none).
     *
     * @throws IllegalArgumentException if it has characters a header cannot carry
     */
    public Builder token(String token) {
      this.token = OptionChecks.once(this.token, new BearerToken(token), "token");
      return this;
    }

    /**
     * Sends through {@code http}, which the admin client does not close (default: a new HTTP/1.1
     * client of its own). {@link #connectTimeout} is then {@code http}'s business.
     */
    public Builder httpClient(HttpClient http) {
      this.httpClient = OptionChecks.once(this.httpClient, http, "httpClient");
      return this;
    }

    /** How long a request may take until its answer begins (default 30 s). */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout =
          OptionChecks.positive(
              OptionChecks.once(this.requestTimeout, requestTimeout, "requestTimeout"),
              "requestTimeout");
      return this;
    }

    /** How long connecting may take, for a client of its own (default 10 s). */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout =
          OptionChecks.positive(
              OptionChecks.once(this.connectTimeout, connectTimeout, "connectTimeout"),
              "connectTimeout");
      return this;
    }

    /**
     * Trust the CA certificates in this PEM file for an {@code https://} endpoint, instead of the
     * JDK's default CAs, in the admin client's own HTTP client. Read by {@link #build}, which names
     * the file when it holds no certificate.
     */
    public Builder caCertificate(Path pemFile) {
      this.caCertificate = OptionChecks.once(this.caCertificate, pemFile, "caCertificate");
      return this;
    }

    /**
     * A new admin client; it connects on its first request.
     *
     * @throws IllegalStateException without an endpoint
     */
    public AdminClient build() {
      if (endpoint == null) {
        throw new IllegalStateException("an admin client needs an endpoint");
      }
      if (httpClient != null && (connectTimeout != null || caCertificate != null)) {
        throw new IllegalStateException(
            "connectTimeout and caCertificate apply to the admin client's own HTTP client, not to"
                + " httpClient");
      }
      boolean ownsClient = httpClient == null;
      HttpClient http =
          ownsClient
              ? HttpTransport.newClient(
                  false,
                  connectTimeout == null ? Duration.ofSeconds(10) : connectTimeout,
                  Optional.ofNullable(caCertificate).map(TrustedCertificates::context))
              : httpClient;
      return new HttpAdminClient(
          endpoint,
          http,
          ownsClient,
          requestTimeout == null ? Duration.ofSeconds(30) : requestTimeout,
          Optional.ofNullable(token));
    }
  }
}
