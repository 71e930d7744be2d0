/**
 * The ordered command log in SQL (SQLite for one node, Postgres for a cluster): optimistic appends
 * with group commit, a tailer on every node, snapshots with truncation, and the lease that elects
 * the node running maintenance.
 */
package io.picomq.sql;
