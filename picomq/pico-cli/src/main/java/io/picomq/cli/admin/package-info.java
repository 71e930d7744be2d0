/**
 * {@code pico admin}: a node's admin API from the command line (cluster, nodes, where a stream
 * lives, placement slots, and the verbs that move streams: transfer, cancel, drain, rebalance, with
 * {@code --wait}), printed as readable lines and tables or, with {@code --json}, as the server's
 * JSON.
 */
package io.picomq.cli.admin;
