package io.picomq.frontend.access;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.picomq.frontend.http.AccessControl;
import io.picomq.frontend.http.AccessRefusal;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Access control for one listener: authenticates the request ({@link Credentials}) and checks that
 * its scope is for this listener's {@link Audience} and allows what the request {@link Need}s.
 *
 * <p>401 when there is no valid credential, or when an anonymous request asks for more than the
 * anonymous scope gives (a token might); 403 when a valid token is not allowed this.
 */
public final class AccessCheck implements AccessControl {

  private final Credentials credentials;
  private final Audience audience;
  private final RequestNeeds needs;
  private final InstantSource clock;

  public AccessCheck(
      Credentials credentials, Audience audience, RequestNeeds needs, InstantSource clock) {
    this.credentials = credentials;
    this.audience = audience;
    this.needs = needs;
    this.clock = clock;
  }

  @Override
  public Optional<AccessRefusal> check(HttpRequest head, String path, boolean mayHaveBody) {
    Need need = path == null ? Need.ANY_CREDENTIAL : needs.need(head, path, mayHaveBody);
    if (need instanceof Need.Open) {
      return Optional.empty();
    }
    List<String> authorization = head.headers().getAll(HttpHeaderNames.AUTHORIZATION);
    if (authorization.size() > 1) {
      return Optional.of(AccessRefusal.unauthorized("send one Authorization header, not several"));
    }
    Authentication who =
        credentials.authenticate(
            authorization.isEmpty() ? null : authorization.get(0), clock.instant());
    return switch (who) {
      case Authentication.Refused refused ->
          Optional.of(AccessRefusal.unauthorized(refused.reason()));
      case Authentication.Granted granted ->
          refusal(granted, need).map(why -> refuse(granted, why));
    };
  }

  private Optional<String> refusal(Authentication.Granted granted, Need need) {
    Scope scope = granted.scope();
    if (!scope.audiences().contains(audience)) {
      return Optional.of(
          "not valid on the "
              + audience.wireName()
              + " listener (its audiences: "
              + scope.audiences().stream()
                  .map(Audience::wireName)
                  .sorted()
                  .collect(Collectors.joining(", "))
              + ")");
    }
    return switch (need) {
      case Need.Open open -> Optional.empty();
      case Need.AnyCredential any -> Optional.empty();
      case Need.Cluster cluster ->
          scope.verbs().contains(cluster.verb())
              ? Optional.empty()
              : Optional.of("does not allow " + cluster.verb().wireName());
      case Need.Listing listing ->
          scope.allowsListing(listing.prefix())
              ? Optional.empty()
              : Optional.of(
                  "does not allow list over every stream starting with '"
                      + listing.prefix()
                      + "' (a scoped token lists with ?prefix= inside its streams)");
      case Need.OnStreams onStreams -> {
        for (Need.Grant grant : onStreams.grants()) {
          if (!scope.allows(grant.verb(), grant.stream())) {
            yield Optional.of(
                "does not allow " + grant.verb().wireName() + " on " + grant.stream());
          }
        }
        yield Optional.empty();
      }
    };
  }

  private static AccessRefusal refuse(Authentication.Granted granted, String why) {
    if (granted.tokenId().isEmpty()) {
      return AccessRefusal.unauthorized(
          "the anonymous scope " + why + "; send Authorization: Bearer <token>");
    }
    return AccessRefusal.forbidden("token " + granted.tokenId().get() + " " + why);
  }
}
