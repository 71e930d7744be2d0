/**
 * The Java side of the Postgres extension ({@code picomq/pico-extension}): the entry point its
 * background worker calls through JNI to start and stop a node, the mapping from {@code pico.*}
 * settings to {@code pico serve} flags, the log lines it hands to Postgres through a pipe, and a
 * Unix-domain socket factory so the node reaches its own database over the local socket.
 */
package io.picomq.cli.extension;
