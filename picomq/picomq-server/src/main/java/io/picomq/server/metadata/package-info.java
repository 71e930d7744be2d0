/**
 * The metadata plane of one node: the SQL command log running {@link
 * io.picomq.meta.MetadataMachine}, the engine's stream and object managers implemented on it, node
 * registration, and the maintenance the lease holder runs (expiring prepared object ids, two-phase
 * collection of destroyed objects).
 */
package io.picomq.server.metadata;
