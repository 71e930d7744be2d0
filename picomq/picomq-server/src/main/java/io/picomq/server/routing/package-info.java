/**
 * The routing step in front of both protocol frontends, implemented on this node's metadata view
 * (section 5 of the product brief): {@link io.picomq.server.routing.ViewRouter} answers the
 * contract's {@link io.picomq.stream.StreamRouter}.
 */
package io.picomq.server.routing;
