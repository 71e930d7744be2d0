/**
 * The vocabulary of the metadata log: one record per kind of change to cluster state. A command
 * validates its own shape when built (ids non-negative, ranges non-empty and sorted, sizes within
 * bounds), so a decoded command is always well formed; whether it applies to the current state is
 * decided by {@code io.picomq.meta.apply}.
 */
package io.picomq.meta.command;
