package io.picomq.node;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.picomq.frontend.access.Need;
import io.picomq.frontend.access.RequestNeeds;
import io.picomq.frontend.access.Verb;

/**
 * The verb each admin request needs: {@code /health} and {@code /ready} are open (load balancers
 * and orchestrators probe them without a token); {@code /admin/tokens} and {@code /admin/anonymous}
 * need {@code tokens}; any other {@code GET} (the views, {@code /metrics}, the dashboard) {@code
 * admin.read}; any other method {@code admin.write}. Admin verbs act on the cluster, so a scope's
 * stream matchers do not limit them.
 */
final class AdminNeeds implements RequestNeeds {

  static final AdminNeeds INSTANCE = new AdminNeeds();

  private AdminNeeds() {}

  @Override
  public Need need(HttpRequest head, String path, boolean mayHaveBody) {
    if (path.equals("/health") || path.equals("/ready")) {
      return Need.OPEN;
    }
    if (TokenVerbs.serves(path)) {
      return new Need.Cluster(Verb.TOKENS);
    }
    HttpMethod method = head.method();
    return new Need.Cluster(
        method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD)
            ? Verb.ADMIN_READ
            : Verb.ADMIN_WRITE);
  }
}
