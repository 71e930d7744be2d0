package io.picomq.cli.admin;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.picomq.cli.Durations;
import io.picomq.client.TokenScope;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The scope flags {@code pico admin token issue} and {@code pico admin anonymous set} share. The
 * names go to the server as given: it knows the operations and audiences, and refuses an unknown
 * one or a scope wider than the caller's token, instead of the CLI guessing.
 */
final class ScopeOptions {

  @Option(
      names = "--streams",
      required = true,
      split = ",",
      paramLabel = "MATCHERS",
      description = "Stream names, exact (orders) or prefixes (logs/*), comma-separated.")
  List<String> streams;

  @Option(
      names = "--operations",
      required = true,
      split = ",",
      paramLabel = "OPS",
      description = {
        "Groups read, write, admin, all, or verbs list, head, read, create, append,",
        "close, trim, fork, delete, admin.read, admin.write, tokens; comma-separated."
      })
  List<String> operations;

  @Option(
      names = "--audiences",
      required = true,
      split = ",",
      paramLabel = "LISTENERS",
      description = "Where it works: pico, durable_streams, admin; comma-separated.")
  List<String> audiences;

  @Option(
      names = "--expires-in",
      paramLabel = "DURATION",
      description = "Expire after 30m, 12h, 720h, ... (default: never).")
  String expiresIn;

  @Option(
      names = "--expires-at",
      paramLabel = "RFC3339",
      description = "Expire at this time, e.g. 2027-01-31T00:00:00Z (default: never).")
  String expiresAt;

  /**
   * The scope the flags describe; {@code --expires-in} counts from {@code clock}'s now.
   *
   * @throws IllegalArgumentException (a usage error) for both expiry flags, or a malformed one
   */
  TokenScope scope(Clock clock) {
    TokenScope scope = TokenScope.of(streams, operations, audiences);
    return expiry(clock).map(scope::withExpiresAt).orElse(scope);
  }

  private Optional<Instant> expiry(Clock clock) {
    if (expiresIn != null && expiresAt != null) {
      throw new IllegalArgumentException("--expires-in and --expires-at exclude each other");
    }
    if (expiresIn != null) {
      return Optional.of(clock.instant().plus(Durations.parse("--expires-in", expiresIn)));
    }
    if (expiresAt != null) {
      try {
        return Optional.of(OffsetDateTime.parse(expiresAt.strip()).toInstant());
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            "--expires-at wants an RFC 3339 time such as 2027-01-31T00:00:00Z, not '"
                + expiresAt
                + "'",
            e);
      }
    }
    return Optional.empty();
  }

  /** A scope as readable {@code key value} fields, lists comma-separated. */
  static ObjectNode readable(TokenScope scope) {
    ObjectNode fields = JsonNodeFactory.instance.objectNode();
    fields.put("streams", String.join(",", scope.streams()));
    fields.put("operations", String.join(",", scope.operations()));
    fields.put("audiences", String.join(",", scope.audiences()));
    fields.put("expires_at", scope.expiresAt().map(Instant::toString).orElse("never"));
    return fields;
  }
}
