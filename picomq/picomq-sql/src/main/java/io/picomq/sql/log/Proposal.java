package io.picomq.sql.log;

import java.util.concurrent.CompletableFuture;

/** A queued proposal: its encoded command and the future its proposer holds. */
record Proposal<R>(byte[] command, CompletableFuture<R> result) {}
