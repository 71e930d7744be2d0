/**
 * The storage pipeline: append through the WAL into the log cache, upload into objects, reads
 * through the log and block caches, compaction and crash recovery.
 */
package io.picomq.s3stream.core;
