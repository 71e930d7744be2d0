/**
 * A PicoMQ node as a library: assembles the metadata plane, the engine, the stream service, the
 * protocol listener and the admin listener (with its metrics and dashboard) from one {@link
 * io.picomq.node.NodeConfig}, and starts and stops them in order. The public API is {@link
 * io.picomq.node.NodeConfig} (and its builder), {@link io.picomq.node.ConnectionSettings}, {@link
 * io.picomq.node.ExposureSettings}, {@link io.picomq.node.Secret} and {@link io.picomq.node.Node}:
 * {@code pico serve} uses nothing else, and neither should an embedder (the Postgres extension's
 * background worker). This is the one place a node is put together; the architecture tests keep it
 * so.
 */
package io.picomq.node;
