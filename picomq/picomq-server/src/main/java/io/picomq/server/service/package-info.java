/**
 * The stream service on the engine and the metadata plane. {@link
 * io.picomq.server.service.EngineStreamService} answers the stream contract and hands each call to
 * the part that owns it: the registry of loaded names ({@code LoadedStreams}, loaded per name on
 * first touch) and of stored entries ({@link io.picomq.server.service.Registry}), the admission
 * checks, the appender, the entry writer with its stamp replay, the segment reader, creates, forks,
 * deletion and expiry. Records are stored in the engine as envelope batches ({@link
 * io.picomq.server.service.RecordBatchPayload}).
 */
package io.picomq.server.service;
