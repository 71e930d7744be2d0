package io.picomq.node;

import io.picomq.frontend.http.AllowedHosts;
import io.picomq.frontend.http.AllowedOrigins;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the node's listeners answer to browsers and to names other than their own.
 *
 * <ul>
 *   <li>Host check (both listeners): a request is answered only when its {@code Host} is one of the
 *       listener's own names ({@link AllowedHosts#forListener}: the bind address's names, the
 *       loopback names and every IP literal for a wildcard bind) or the advertised address's host,
 *       or one of {@code allowedHosts}; {@code *} there turns the check off.
 *   <li>CORS: the data listener lets pages of {@code corsOrigins} call it (default {@code
 *       loopback}: web apps served from this machine); the admin listener those of {@code
 *       adminCorsOrigins} (default none).
 * </ul>
 *
 * @param allowedHosts names ({@code name} for any port, {@code name:port} for one), added to each
 *     listener's own ({@code --allowed-hosts})
 * @param corsOrigins the data listener's CORS origins ({@code --cors-origins})
 * @param adminCorsOrigins the admin listener's CORS origins ({@code --admin-cors-origins})
 */
public record ExposureSettings(
    List<String> allowedHosts, AllowedOrigins corsOrigins, AllowedOrigins adminCorsOrigins) {

  public static final ExposureSettings DEFAULT =
      new ExposureSettings(List.of(), AllowedOrigins.LOOPBACK, AllowedOrigins.NONE);

  /**
   * Parses the origin lists as {@code pico serve} takes them ({@link AllowedOrigins#parse}: {@code
   * none}, {@code *}, {@code loopback}, origins).
   *
   * @throws IllegalArgumentException naming an entry that is no host or no origin
   */
  public static ExposureSettings parse(
      List<String> allowedHosts, String corsOrigins, String adminCorsOrigins) {
    return new ExposureSettings(
        allowedHosts, AllowedOrigins.parse(corsOrigins), AllowedOrigins.parse(adminCorsOrigins));
  }

  public ExposureSettings {
    allowedHosts = List.copyOf(allowedHosts);
    Objects.requireNonNull(corsOrigins, "corsOrigins");
    Objects.requireNonNull(adminCorsOrigins, "adminCorsOrigins");
    // Refuses an entry that is no host name at start-up, not at the first request.
    AllowedHosts.of(allowedHosts.stream().filter(entry -> !entry.equals("*")).toList(), false);
  }

  /**
   * The hosts a listener bound to {@code bindHost} answers, in a node advertised at {@code
   * advertisedAddress} (a base URL such as {@code http://node1:4437}: its host is allowed, since
   * other nodes redirect clients there).
   */
  AllowedHosts hostsFor(String bindHost, String advertisedAddress) {
    List<String> extra = new ArrayList<>(allowedHosts);
    hostOf(advertisedAddress).ifPresent(extra::add);
    return AllowedHosts.forListener(bindHost, extra);
  }

  private static Optional<String> hostOf(String baseUrl) {
    try {
      return Optional.ofNullable(new URI(baseUrl).getHost());
    } catch (URISyntaxException notAUrl) {
      // Such an address cannot be redirected to either; the bind address's names still pass.
      return Optional.empty();
    }
  }
}
