/**
 * The log cache: every appended record batch, in memory, from the moment it is appended until it is
 * uploaded into objects and no longer needed for reads. It is cut into blocks, each a contiguous
 * range of the WAL; a sealed block is what one upload writes and commits. Readers get only what the
 * write path has confirmed; the byte accounting backs the write path's admission control.
 */
package io.picomq.s3stream.core.logcache;
