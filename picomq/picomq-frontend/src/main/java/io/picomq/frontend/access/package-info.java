/**
 * Access control (brief section 5.2): opaque bearer tokens ({@link PresentedToken}) whose scope
 * ({@link Scope}: stream matchers, operations, audiences, expiry) says what a request may do; the
 * verb each request of either protocol needs ({@link PicoAccess}, {@link DsAccess}); and the check
 * that puts them together on the request head, before routing and before any body is read ({@link
 * AccessCheck}). Where tokens are kept is the node's business: it hands the listeners a {@link
 * Credentials}.
 */
package io.picomq.frontend.access;
