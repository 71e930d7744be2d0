/**
 * The stream service on the engine and the metadata plane: the name registry (entries in the
 * metadata KV), lazy opening, appends with idempotent producers, reads through forks, waiters and
 * expiry. Records are stored in the engine as envelope batches ({@link
 * io.picomq.server.service.RecordBatchPayload}).
 */
package io.picomq.server.service;
