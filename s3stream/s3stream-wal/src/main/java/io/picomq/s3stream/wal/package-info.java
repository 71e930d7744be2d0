/**
 * The write-ahead log: a per-node, single-writer, epoch-fenced log of small objects that lets the
 * engine acknowledge appends before records are uploaded into data objects.
 */
package io.picomq.s3stream.wal;
