/**
 * The {@code file://} backend: objects as files under one root directory, written atomically, with
 * keys encoded so that no key can name a path outside the root.
 */
package io.picomq.s3stream.objectstore.file;
