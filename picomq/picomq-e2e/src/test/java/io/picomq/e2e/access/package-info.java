/**
 * Access control on real {@code pico serve} processes: the start rule for listeners beyond
 * loopback, and revocation seen by every node of a Postgres cluster on the next request.
 */
package io.picomq.e2e.access;
