/**
 * The replicated command log: proposals are group-committed as rows of an {@code (idx, payload)}
 * table, every node tails the table and applies each command to a deterministic {@link
 * io.picomq.sql.log.ReplicatedStateMachine}, and each applied row publishes a new immutable {@link
 * io.picomq.sql.log.View}. Snapshots bound the table; an undecodable row stops the node's sink
 * rather than fork its state. Entry point: {@link io.picomq.sql.log.SqlLog}.
 */
package io.picomq.sql.log;
