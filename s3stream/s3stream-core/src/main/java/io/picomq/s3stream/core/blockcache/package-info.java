/**
 * The block cache: fixed-size pages of committed (immutable) objects held in memory, so that many
 * readers of the same bytes cost one GET and a replaying reader streams from storage in large,
 * early requests. {@link io.picomq.s3stream.core.blockcache.BlockCache} is the cache; {@link
 * io.picomq.s3stream.core.blockcache.CachedObjectView} puts it under an {@code ObjectReader}.
 * Design and figures: {@code s3stream/specification/read-path.md}.
 */
package io.picomq.s3stream.core.blockcache;
