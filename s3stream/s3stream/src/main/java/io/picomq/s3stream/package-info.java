/**
 * The engine's facade: {@link io.picomq.s3stream.S3Stream#builder()} assembles a {@link
 * io.picomq.s3stream.api.StreamEngine} from an {@link io.picomq.s3stream.api.EngineConfig}, storage
 * URIs and the host's stream and object managers. With {@code io.picomq.s3stream.api}, the only
 * engine types the host may use.
 */
package io.picomq.s3stream;
