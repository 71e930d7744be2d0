package io.picomq.client;

/**
 * The answer to an append, once every record of it is durable.
 *
 * @param startSeq the seq of the first appended record
 * @param nextSeq the seq after the last appended record (the stream's tail right after it)
 * @param timestampMillis the unix milliseconds the server stamped the records with; 0 when the
 *     protocol does not say (Durable Streams)
 * @param duplicate whether the server recognised an idempotent producer's retry of an append it had
 *     already made durable (then nothing was written again; under Durable Streams the seqs of a
 *     duplicate are not known and both are the stream's tail)
 */
public record AppendResult(long startSeq, long nextSeq, long timestampMillis, boolean duplicate) {}
