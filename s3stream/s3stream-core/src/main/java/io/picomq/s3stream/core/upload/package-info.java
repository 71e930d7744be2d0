/**
 * Uploads: turns a sealed log cache block (or a batch of recovered WAL records) into data objects
 * and commits them. {@link io.picomq.s3stream.core.upload.ObjectUploader} prepares object ids,
 * splits the data into stream objects and one stream-set object and writes them; {@link
 * io.picomq.s3stream.core.upload.UploadPipeline} lets uploads overlap but commits them strictly in
 * seal order, then trims the WAL.
 */
package io.picomq.s3stream.core.upload;
