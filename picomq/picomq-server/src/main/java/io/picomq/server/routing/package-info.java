/**
 * The routing step in front of both protocol frontends: which node serves a stream, decided from
 * this node's metadata view (section 5 of the product brief).
 */
package io.picomq.server.routing;
