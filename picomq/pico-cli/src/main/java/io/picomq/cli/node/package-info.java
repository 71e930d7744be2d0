/**
 * The node behind {@code pico serve}: assembles the metadata plane, the engine, the stream service,
 * the protocol listener and the admin listener (with its metrics and dashboard), and starts and
 * stops them in order.
 */
package io.picomq.cli.node;
