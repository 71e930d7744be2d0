package io.picomq.s3stream.core.blockcache;

/**
 * Names one page: page {@code index} of the object at {@code objectKey}. Keys, not object ids,
 * because a composite object's blocks live in component objects that only a key names.
 */
record PageKey(String objectKey, long index) {}
