/**
 * {@code pico admin}: a node's admin API from the command line (cluster, nodes, where a stream
 * lives, stream transfers, placement slots), printed as readable lines and tables or, with {@code
 * --json}, as the server's JSON.
 */
package io.picomq.cli.admin;
